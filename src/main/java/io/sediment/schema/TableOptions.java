package io.sediment.schema;

import io.sediment.schema.OptionSet.Declared;
import java.io.Serializable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;

/**
 * Every table option Sediment knows and the typed view of one table's options. The options are
 * declared, each with the rule its values keep, in {@link LayoutOptions}, {@link
 * CompactionOptions}, {@link PrimaryKeyOptions}, {@link ScanOptions} and {@link CommitOptions};
 * {@link #validate(Map)} rejects unknown keys, values that do not parse and values a rule refuses,
 * with a message that names the key and what is allowed, and checks the rules between options.
 *
 * <p>docs/configuration.md is the user-facing copy of the list; a test holds them in step.
 */
public final class TableOptions implements Serializable {

  private static final long serialVersionUID = 1L;

  private static final Map<String, Declared<?>> DECLARED =
      union(
          LayoutOptions.OPTIONS,
          CompactionOptions.OPTIONS,
          PrimaryKeyOptions.OPTIONS,
          ScanOptions.OPTIONS,
          CommitOptions.OPTIONS,
          TagOptions.OPTIONS);

  private static final Map<String, ConfigOption<?>> ALL = options(DECLARED);

  private final Map<String, String> raw;
  private transient Configuration conf;

  private TableOptions(Map<String, String> raw) {
    this.raw = Collections.unmodifiableMap(new LinkedHashMap<>(raw));
  }

  /** Validates and wraps options. */
  public static TableOptions of(Map<String, String> options) {
    validate(options);
    return new TableOptions(options);
  }

  /** Every known option, by key, in declaration order. */
  public static Map<String, ConfigOption<?>> all() {
    return ALL;
  }

  /** The rule of the option with {@code key}. */
  public static OptionRule<?> rule(String key) {
    Declared<?> declared = DECLARED.get(key);
    if (declared == null) {
      throw new IllegalArgumentException("Unknown table option '" + key + "'");
    }
    return declared.rule();
  }

  /**
   * Rejects unknown keys and bad values. The message names the key, the value and what is allowed.
   */
  public static void validate(Map<String, String> options) {
    Configuration conf = Configuration.fromMap(options);
    List<String> unknown = new ArrayList<>();
    for (Map.Entry<String, String> e : options.entrySet()) {
      String key = e.getKey();
      if (PrimaryKeyOptions.FIELD_AGGREGATE_FUNCTION.matcher(key).matches()) {
        checkFieldOption(
            key,
            e.getValue(),
            PrimaryKeyOptions.AGGREGATE_FUNCTIONS,
            PrimaryKeyOptions.AGGREGATE_FUNCTIONS.toString());
        continue;
      }
      if (PrimaryKeyOptions.FIELD_IGNORE_RETRACT.matcher(key).matches()) {
        checkFieldOption(key, e.getValue(), List.of("true", "false"), "true, false");
        continue;
      }
      Declared<?> declared = DECLARED.get(key);
      if (declared == null) {
        unknown.add(key);
        continue;
      }
      String problem;
      try {
        problem = declared.problem(conf);
      } catch (RuntimeException ex) {
        throw new IllegalArgumentException(
            "Invalid value '"
                + e.getValue()
                + "' for option '"
                + key
                + "': "
                + rootMessage(ex)
                + " (expected "
                + declared.expectedType()
                + ")",
            ex);
      }
      if (problem != null) {
        throw new IllegalArgumentException(
            "Invalid value '" + e.getValue() + "' for option '" + key + "': " + problem);
      }
    }
    checkRetainedRange(conf, options);
    checkScanStart(conf, options);
    checkTagDelay(conf, options);
    if (!unknown.isEmpty()) {
      throw new IllegalArgumentException(
          "Unknown table option(s) "
              + unknown
              + "; known options are "
              + new TreeSet<>(ALL.keySet())
              + ", fields.<field>.aggregate-function and fields.<field>.ignore-retract");
    }
  }

  private static void checkFieldOption(
      String key, String value, List<String> allowed, String allowedText) {
    String v = value == null ? "" : value.trim().toLowerCase(Locale.ROOT);
    if (!allowed.contains(v)) {
      throw new IllegalArgumentException(
          "Invalid value '" + value + "' for option '" + key + "'; allowed: " + allowedText);
    }
  }

  /**
   * snapshot.num-retained.min must not exceed snapshot.num-retained.max when both are given; a max
   * given alone below the default min lowers the min with it ({@link #snapshotRetainMin}).
   */
  private static void checkRetainedRange(Configuration conf, Map<String, String> options) {
    if (!options.containsKey(CommitOptions.SNAPSHOT_NUM_RETAINED_MIN.key())
        || !options.containsKey(CommitOptions.SNAPSHOT_NUM_RETAINED_MAX.key())) {
      return;
    }
    int min = conf.get(CommitOptions.SNAPSHOT_NUM_RETAINED_MIN);
    int max = conf.get(CommitOptions.SNAPSHOT_NUM_RETAINED_MAX);
    if (min > max) {
      throw new IllegalArgumentException(
          "Option 'snapshot.num-retained.min' ("
              + min
              + ") must not be larger than 'snapshot.num-retained.max' ("
              + max
              + ")");
    }
  }

  /** An automatic tag's delay must end before the next period does (Paimon's rule). */
  private static void checkTagDelay(Configuration conf, Map<String, String> options) {
    if (!options.containsKey(TagOptions.TAG_CREATION_DELAY.key())) {
      return;
    }
    Duration period = TagOptions.periodLength(conf.get(TagOptions.TAG_CREATION_PERIOD));
    if (conf.get(TagOptions.TAG_CREATION_DELAY).compareTo(period) >= 0) {
      throw new IllegalArgumentException(
          "Invalid value '"
              + options.get(TagOptions.TAG_CREATION_DELAY.key())
              + "' for option 'tag.creation-delay': must be shorter than one tag.creation-period ("
              + conf.get(TagOptions.TAG_CREATION_PERIOD)
              + ")");
    }
  }

  /**
   * scan.snapshot-id, scan.timestamp-millis, scan.tag-name and scan.watermark go with the scan.mode
   * that uses them, one at a time.
   */
  private static void checkScanStart(Configuration conf, Map<String, String> options) {
    if (!options.containsKey(ScanOptions.SCAN_MODE.key())
        && !options.containsKey(ScanOptions.SCAN_SNAPSHOT_ID.key())
        && !options.containsKey(ScanOptions.SCAN_TIMESTAMP_MILLIS.key())
        && !options.containsKey(ScanOptions.SCAN_TAG_NAME.key())
        && !options.containsKey(ScanOptions.SCAN_WATERMARK.key())) {
      return;
    }
    String mode = conf.get(ScanOptions.SCAN_MODE).toLowerCase(Locale.ROOT);
    boolean id = options.containsKey(ScanOptions.SCAN_SNAPSHOT_ID.key());
    boolean ts = options.containsKey(ScanOptions.SCAN_TIMESTAMP_MILLIS.key());
    boolean tag = options.containsKey(ScanOptions.SCAN_TAG_NAME.key());
    boolean wm = options.containsKey(ScanOptions.SCAN_WATERMARK.key());
    String named = tag ? "scan.tag-name" : "scan.watermark"; // the options only from-snapshot takes
    String problem = null;
    if ((id ? 1 : 0) + (ts ? 1 : 0) + (tag ? 1 : 0) + (wm ? 1 : 0) > 1) {
      problem =
          "give one of 'scan.snapshot-id', 'scan.timestamp-millis', 'scan.tag-name' and"
              + " 'scan.watermark'";
    } else if ((tag || wm) && !mode.equals("default") && !mode.equals("from-snapshot")) {
      problem =
          "'" + named + "' goes with scan.mode 'from-snapshot' (or 'default'), not '" + mode + "'";
    } else if (mode.startsWith("from-snapshot") && !id && !tag && !wm) {
      problem =
          "scan.mode '"
              + mode
              + "' needs 'scan.snapshot-id'"
              + (mode.equals("from-snapshot") ? ", 'scan.tag-name' or 'scan.watermark'" : "");
    } else if (mode.equals("from-timestamp") && !ts) {
      problem = "scan.mode 'from-timestamp' needs 'scan.timestamp-millis'";
    } else if (id && !mode.equals("default") && !mode.startsWith("from-snapshot")) {
      problem =
          "'scan.snapshot-id' goes with scan.mode 'from-snapshot' (or 'default'), not '"
              + mode
              + "'";
    } else if (ts && !mode.equals("default") && !mode.equals("from-timestamp")) {
      problem =
          "'scan.timestamp-millis' goes with scan.mode 'from-timestamp' (or 'default'), not '"
              + mode
              + "'";
    }
    if (problem != null) {
      throw new IllegalArgumentException(
          "Invalid scan options " + scanOptions(options) + ": " + problem);
    }
  }

  private static Map<String, String> scanOptions(Map<String, String> options) {
    Map<String, String> out = new LinkedHashMap<>();
    options.forEach(
        (k, v) -> {
          if (k.startsWith("scan.")) {
            out.put(k, v);
          }
        });
    return out;
  }

  private static String rootMessage(Throwable t) {
    Throwable c = t;
    while (c.getCause() != null && c.getCause() != c) {
      c = c.getCause();
    }
    return c.getMessage() == null ? t.toString() : c.getMessage();
  }

  private static Map<String, Declared<?>> union(OptionSet... sets) {
    Map<String, Declared<?>> all = new LinkedHashMap<>();
    for (OptionSet set : sets) {
      for (Declared<?> d : set.declared().values()) {
        if (all.putIfAbsent(d.option().key(), d) != null) {
          throw new IllegalStateException("Option '" + d.option().key() + "' is declared twice");
        }
      }
    }
    return Collections.unmodifiableMap(all);
  }

  private static Map<String, ConfigOption<?>> options(Map<String, Declared<?>> declared) {
    Map<String, ConfigOption<?>> all = new LinkedHashMap<>();
    declared.forEach((key, d) -> all.put(key, d.option()));
    return Collections.unmodifiableMap(all);
  }

  // ---- typed access -----------------------------------------------------------------------

  /** The raw key/value map as given (no defaults). */
  public Map<String, String> toMap() {
    return raw;
  }

  /** Options fixed when a table is created: they decide where rows live and how they merge. */
  public static final Set<String> IMMUTABLE =
      Set.of(
          "bucket",
          "bucket-key",
          "merge-engine",
          "sequence.field",
          "deletion-vectors.enabled",
          "aggregation.remove-record-on-delete",
          // a job with another producer would move level-0 rows up without their changelog
          "changelog-producer");

  /**
   * These options with {@code dynamic} laid over them, validated. Options in {@link #IMMUTABLE} and
   * per-field options cannot be changed this way.
   */
  public TableOptions with(Map<String, String> dynamic) {
    for (String key : dynamic.keySet()) {
      if (IMMUTABLE.contains(key)
          || PrimaryKeyOptions.FIELD_AGGREGATE_FUNCTION.matcher(key).matches()) {
        throw new IllegalArgumentException(
            "Option '"
                + key
                + "' is fixed when the table is created and cannot be given as a dynamic option");
      }
    }
    Map<String, String> merged = new LinkedHashMap<>(raw);
    merged.putAll(dynamic);
    return of(merged);
  }

  public <T> T get(ConfigOption<T> option) {
    return conf().get(option);
  }

  private Configuration conf() {
    if (conf == null) {
      conf = Configuration.fromMap(raw);
    }
    return conf;
  }

  public int bucket() {
    return get(LayoutOptions.BUCKET);
  }

  public long targetFileSize() {
    return get(LayoutOptions.TARGET_FILE_SIZE).getBytes();
  }

  /**
   * Size from which compaction copies an input row group instead of merging it into a new one:
   * {@link #CompactionOptions.COMPACTION_COPY_MIN_ROW_GROUP_SIZE}, by default half of the row-group
   * size.
   */
  public long copyMinRowGroupSize() {
    MemorySize size = conf().get(CompactionOptions.COMPACTION_COPY_MIN_ROW_GROUP_SIZE);
    return size != null
        ? size.getBytes()
        : get(LayoutOptions.PARQUET_ROW_GROUP_SIZE).getBytes() / 2;
  }

  public String compression() {
    return get(LayoutOptions.FILE_COMPRESSION).toLowerCase(Locale.ROOT);
  }

  public boolean writeOnly() {
    return get(CompactionOptions.WRITE_ONLY);
  }

  /** {@code changelog-producer}, lower case: none, input or lookup. */
  public String changelogProducer() {
    return get(PrimaryKeyOptions.CHANGELOG_PRODUCER).toLowerCase(Locale.ROOT);
  }

  /** Whether compactions moving level-0 rows up compute the changelog ({@code lookup}). */
  public boolean lookupChangelog() {
    return changelogProducer().equals("lookup");
  }

  public String mergeEngine() {
    return get(PrimaryKeyOptions.MERGE_ENGINE).toLowerCase(Locale.ROOT);
  }

  public int numSortedRunCompactionTrigger() {
    return get(PrimaryKeyOptions.NUM_SORTED_RUN_COMPACTION_TRIGGER);
  }

  public int numSortedRunStopTrigger() {
    Integer v = conf().get(PrimaryKeyOptions.NUM_SORTED_RUN_STOP_TRIGGER);
    return v == null
        ? numSortedRunCompactionTrigger() + 3
        : Math.max(v, numSortedRunCompactionTrigger());
  }

  public int numLevels() {
    Integer v = conf().get(PrimaryKeyOptions.NUM_LEVELS);
    return v == null ? numSortedRunCompactionTrigger() + 1 : v;
  }

  /**
   * Snapshots always kept: snapshot.num-retained.min, but not above snapshot.num-retained.max (a
   * max given alone below the default min).
   */
  public int snapshotRetainMin() {
    return Math.min(
        get(CommitOptions.SNAPSHOT_NUM_RETAINED_MIN), get(CommitOptions.SNAPSHOT_NUM_RETAINED_MAX));
  }

  /** Aggregate function of each field that has one, by field name. */
  public Map<String, String> aggregateFunctions() {
    Map<String, String> out = new LinkedHashMap<>();
    for (Map.Entry<String, String> e : raw.entrySet()) {
      Matcher m = PrimaryKeyOptions.FIELD_AGGREGATE_FUNCTION.matcher(e.getKey());
      if (m.matches()) {
        out.put(m.group(1), e.getValue().trim().toLowerCase(Locale.ROOT));
      }
    }
    return out;
  }

  /** Fields whose retractions are dropped ({@code fields.<f>.ignore-retract} = true). */
  public Set<String> ignoreRetractFields() {
    Set<String> out = new TreeSet<>();
    for (Map.Entry<String, String> e : raw.entrySet()) {
      Matcher m = PrimaryKeyOptions.FIELD_IGNORE_RETRACT.matcher(e.getKey());
      if (m.matches() && e.getValue().trim().equalsIgnoreCase("true")) {
        out.add(m.group(1));
      }
    }
    return out;
  }

  /** Field names named in per-field options, to check that they exist. */
  public Set<String> referencedFields() {
    Set<String> out = new TreeSet<>(aggregateFunctions().keySet());
    for (String key : raw.keySet()) {
      Matcher m = PrimaryKeyOptions.FIELD_IGNORE_RETRACT.matcher(key);
      if (m.matches()) {
        out.add(m.group(1));
      }
    }
    return out;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof TableOptions && ((TableOptions) o).raw.equals(raw);
  }

  @Override
  public int hashCode() {
    return raw.hashCode();
  }

  @Override
  public String toString() {
    return raw.toString();
  }
}
