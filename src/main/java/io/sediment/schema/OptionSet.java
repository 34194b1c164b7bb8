package io.sediment.schema;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;

/**
 * Table options declared together with their rules, in declaration order: each option class ({@link
 * LayoutOptions}, {@link CompactionOptions}, ...) builds one, and {@link TableOptions} validates
 * against their union.
 */
final class OptionSet {

  /** One option and the rule its values keep. */
  record Declared<T>(ConfigOption<T> option, OptionRule<? super T> rule) {

    /** The option's value in {@code conf}, parsed (throws when it does not parse). */
    T parse(Configuration conf) {
      return conf.get(option);
    }

    /** The rule's problem with the value in {@code conf}, or null. */
    String problem(Configuration conf) {
      T value = parse(conf);
      return value == null ? null : rule.problem(value);
    }

    /** What a value of this option looks like, for an error about one that does not parse. */
    String expectedType() {
      Object def = option.hasDefaultValue() ? option.defaultValue() : null;
      if (def instanceof MemorySize) {
        return "a memory size such as '128 mb'";
      } else if (def instanceof Duration) {
        return "a duration such as '10 s'";
      } else if (def instanceof Boolean) {
        return "true or false";
      } else if (def instanceof Integer || def instanceof Long) {
        return "an integer";
      } else if (def instanceof Double) {
        return "a number";
      }
      return rule.expectedType() != null ? rule.expectedType() : "a string";
    }
  }

  private final Map<String, Declared<?>> declared = new LinkedHashMap<>();

  /** Declares {@code option}, whose values must keep {@code rule}. */
  <T> ConfigOption<T> add(ConfigOption<T> option, OptionRule<? super T> rule) {
    if (declared.putIfAbsent(option.key(), new Declared<>(option, rule)) != null) {
      throw new IllegalStateException("Option '" + option.key() + "' is declared twice");
    }
    return option;
  }

  /** Declares {@code option}, any value of its type allowed. */
  <T> ConfigOption<T> add(ConfigOption<T> option) {
    return add(option, OptionRule.any());
  }

  Map<String, Declared<?>> declared() {
    return Collections.unmodifiableMap(declared);
  }
}
