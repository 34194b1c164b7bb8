package io.sediment.flink.sql.procedures;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.catalog.Identifier;
import io.sediment.compact.CompactArgumentException;
import io.sediment.compact.CompactSpec;
import io.sediment.compact.ExecutionMode;
import io.sediment.maintenance.PointInTime;
import io.sediment.schema.Durations;
import io.sediment.table.Table;
import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import org.apache.flink.table.annotation.ArgumentHint;
import org.apache.flink.table.procedures.Procedure;

/** Argument parsing shared by the procedures; every error names the argument. */
public final class ProcedureArgs {

  private ProcedureArgs() {}

  /**
   * The argument names {@code procedure} declares ({@code @ArgumentHint} of its {@code call}
   * methods), in declaration order: what a {@code CALL} may name.
   */
  public static List<String> declaredArguments(Procedure procedure) {
    return arguments(procedure, hint -> true);
  }

  /**
   * The arguments of {@link #declaredArguments} that are not optional: a {@code CALL} must name
   * them.
   */
  public static List<String> requiredArguments(Procedure procedure) {
    return arguments(procedure, hint -> !hint.isOptional());
  }

  private static List<String> arguments(Procedure procedure, Predicate<ArgumentHint> which) {
    Set<String> names = new LinkedHashSet<>();
    for (Method m : procedure.getClass().getMethods()) {
      if (!m.getName().equals("call")) {
        continue;
      }
      for (Parameter p : m.getParameters()) {
        ArgumentHint hint = p.getAnnotation(ArgumentHint.class);
        if (hint != null && which.test(hint)) {
          names.add(hint.name());
        }
      }
    }
    return new ArrayList<>(names);
  }

  static IllegalArgumentException bad(String argument, String message) {
    return new IllegalArgumentException("Argument '" + argument + "': " + message);
  }

  static IllegalArgumentException bad(String argument, RuntimeException cause) {
    return new IllegalArgumentException(
        "Argument '" + argument + "': " + cause.getMessage(), cause);
  }

  /** Argument {@code argument} as a duration ({@code '1 d'}, {@code '12 h'}, {@code '30 min'}). */
  static Duration duration(String argument, String text) {
    try {
      return Durations.withUnit(text);
    } catch (IllegalArgumentException e) {
      throw bad(argument, e);
    }
  }

  /** Loads {@code db.table}. */
  static Table table(FileSystemCatalog catalog, String name) {
    if (name == null || name.isBlank()) {
      throw bad("table", "a table name 'database.table' is required");
    }
    try {
      Identifier id = Identifier.parse(name.strip());
      if (!catalog.tableExists(id)) {
        throw bad("table", "table '" + id + "' does not exist in " + catalog.warehouse());
      }
      return catalog.getTable(id);
    } catch (IllegalArgumentException e) {
      throw e.getMessage().startsWith("Argument ") ? e : bad("table", e);
    }
  }

  /**
   * Applies the table options (argument {@code optionsArg}: {@code options} of {@code sys.compact},
   * {@code table_options} of {@code compact_database}) when not blank, and {@code commit_user} when
   * given (not null).
   */
  static void optionsAndCommitUser(
      CompactSpec.Builder spec, String optionsArg, String options, String commitUser) {
    if (options != null && !options.isBlank()) {
      try {
        spec.withOptions(keyValues(optionsArg, options));
      } catch (IllegalArgumentException e) {
        throw e.getMessage().startsWith("Argument ") ? e : bad(optionsArg, e);
      }
    }
    if (commitUser != null) {
      try {
        spec.withCommitUser(commitUser);
      } catch (IllegalArgumentException e) {
        throw bad("commit_user", e);
      }
    }
  }

  /** Applies {@code compact_strategy} and {@code partition_idle_time} when given (not null). */
  static void strategyArgs(
      CompactSpec.Builder spec, String compactStrategy, String partitionIdleTime) {
    if (compactStrategy != null) {
      try {
        spec.withStrategy(compactStrategy);
      } catch (IllegalArgumentException e) {
        throw bad("compact_strategy", e);
      }
    }
    if (partitionIdleTime != null) {
      Duration idle = duration("partition_idle_time", partitionIdleTime);
      try {
        spec.withPartitionIdleTime(idle);
      } catch (IllegalArgumentException e) {
        throw bad("partition_idle_time", e);
      }
    }
  }

  /** The {@code mode} argument: batch (when not given) or streaming. */
  static ExecutionMode mode(String mode) {
    try {
      return ExecutionMode.parse(mode);
    } catch (IllegalArgumentException e) {
      throw bad("mode", e);
    }
  }

  /**
   * Builds the request and checks it for {@code mode}: a rule it breaks ({@link
   * CompactArgumentException}) is reported on the argument the rule names.
   */
  static CompactSpec build(CompactSpec.Builder spec, ExecutionMode mode) {
    try {
      CompactSpec built = spec.build();
      built.checkMode(mode);
      return built;
    } catch (CompactArgumentException e) {
      throw bad(e.argument(), e);
    }
  }

  /** {@code k=v,k2=v2} as an ordered map. */
  static Map<String, String> keyValues(String argument, String text) {
    Map<String, String> out = new LinkedHashMap<>();
    if (text == null || text.isBlank()) {
      return out;
    }
    for (String kv : text.split(",")) {
      int eq = kv.indexOf('=');
      if (eq <= 0) {
        throw bad(argument, "'" + kv.strip() + "' is not 'key=value'");
      }
      out.put(kv.substring(0, eq).strip(), kv.substring(eq + 1).strip());
    }
    return out;
  }

  /**
   * A point in time: a timestamp ({@code 2024-05-01 10:00:00} or ISO, local time zone) or an age
   * ({@code 1 h}, {@code 7d}, {@code 30 min}) counted back from now. Returns epoch millis.
   */
  static long pointInTime(String argument, String text) {
    try {
      return PointInTime.parse(text, Clock.systemUTC());
    } catch (IllegalArgumentException e) {
      throw bad(argument, e);
    }
  }
}
