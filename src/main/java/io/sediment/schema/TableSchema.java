package io.sediment.schema;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.utils.LogicalTypeParser;

/**
 * The stored, validated schema of a table (file {@code schema/schema-<id>}): fields with ids,
 * partition keys, primary keys and options. Immutable.
 */
public final class TableSchema implements Serializable {

  private static final long serialVersionUID = 1L;

  private final long id;
  private final List<DataField> fields;
  private final List<String> partitionKeys;
  private final List<String> primaryKeys;
  private final Map<String, String> options;
  private final String comment;
  private final long timeMillis;
  // the largest field id ever given in this table (dropped columns included): ids are never reused
  private final int highestFieldId;

  private transient RowType rowType;

  @JsonCreator
  public TableSchema(
      @JsonProperty("id") long id,
      @JsonProperty("fields") List<DataField> fields,
      @JsonProperty("partitionKeys") List<String> partitionKeys,
      @JsonProperty("primaryKeys") List<String> primaryKeys,
      @JsonProperty("options") Map<String, String> options,
      @JsonProperty("comment") String comment,
      @JsonProperty("timeMillis") long timeMillis,
      @JsonProperty("highestFieldId") Integer highestFieldId) {
    this.id = id;
    this.fields = List.copyOf(fields);
    this.partitionKeys = partitionKeys == null ? List.of() : List.copyOf(partitionKeys);
    this.primaryKeys = primaryKeys == null ? List.of() : List.copyOf(primaryKeys);
    this.options =
        options == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(options));
    this.comment = comment;
    this.timeMillis = timeMillis;
    int max = -1;
    for (DataField f : this.fields) {
      max = Math.max(max, f.id());
    }
    // schemas written before column changes existed have no highestFieldId: their largest id is it
    this.highestFieldId = highestFieldId == null ? max : Math.max(highestFieldId, max);
  }

  /**
   * Validates a user's {@link Schema} into the first stored schema (id 0). Rejects partition or
   * primary keys that are not columns, duplicates, unknown options or bad option values, and
   * primary-key tables whose partition keys are not part of the primary key. {@code timeMillis}:
   * when it is created (the catalog's clock).
   */
  public static TableSchema create(Schema schema, long timeMillis) {
    return create(schema, timeMillis, true);
  }

  /** {@link #create(Schema, long)}; {@code mergeRules}: whether {@link MergeEngineRules} apply. */
  private static TableSchema create(Schema schema, long timeMillis, boolean mergeRules) {
    if (schema.columns().isEmpty()) {
      throw new IllegalArgumentException("A table needs at least one column");
    }
    List<DataField> fields = new ArrayList<>();
    List<String> names = new ArrayList<>();
    for (Schema.Column c : schema.columns()) {
      if (!SupportedTypes.isSupported(c.type())) {
        throw SupportedTypes.unsupported(c.name(), c.type());
      }
      if (ColumnChanges.RESERVED.contains(c.name().toUpperCase(Locale.ROOT))) {
        throw new IllegalArgumentException(
            "Column name '"
                + c.name()
                + "' is reserved for Sediment's own columns "
                + ColumnChanges.RESERVED);
      }
      names.add(c.name());
      fields.add(
          new DataField(fields.size(), c.name(), c.type().asSerializableString(), c.comment()));
    }
    checkKeys("Partition key", schema.partitionKeys(), names);
    checkKeys("Primary key", schema.primaryKeys(), names);
    Map<String, String> options = new LinkedHashMap<>(schema.options());
    TableOptions opts = TableOptions.of(options);
    checkPartitionTime(options, schema.partitionKeys());

    if (!schema.primaryKeys().isEmpty()) {
      for (String p : schema.partitionKeys()) {
        if (!schema.primaryKeys().contains(p)) {
          throw new IllegalArgumentException(
              "Partition key '"
                  + p
                  + "' must be part of the primary key "
                  + schema.primaryKeys()
                  + " of a primary-key table");
        }
      }
      if (opts.get(PrimaryKeyOptions.DELETION_VECTORS_ENABLED)
          && !List.of("deduplicate", "first-row").contains(opts.mergeEngine())) {
        throw new IllegalArgumentException(
            "Option 'deletion-vectors.enabled' = 'true' works only with merge-engine deduplicate or"
                + " first-row, not "
                + opts.mergeEngine());
      }
      if (opts.bucket() < 1) {
        throw new IllegalArgumentException(
            "A primary-key table needs a fixed number of buckets: set 'bucket' to a positive"
                + " number (got "
                + opts.bucket()
                + ")");
      }
    } else if (!"deduplicate".equals(opts.mergeEngine())
        || options.containsKey(PrimaryKeyOptions.SEQUENCE_FIELD.key())
        || opts.get(PrimaryKeyOptions.DELETION_VECTORS_ENABLED)
        || !opts.referencedFields().isEmpty()
        || opts.get(PrimaryKeyOptions.IGNORE_DELETE)
        || opts.get(PrimaryKeyOptions.PARTIAL_UPDATE_REMOVE_RECORD_ON_DELETE)
        || opts.get(PrimaryKeyOptions.AGGREGATION_REMOVE_RECORD_ON_DELETE)
        || !opts.changelogProducer().equals("none")) {
      throw new IllegalArgumentException(
          "Options merge-engine, sequence.field, deletion-vectors.enabled, ignore-delete,"
              + " *.remove-record-on-delete, changelog-producer and fields.<f>.* apply only to"
              + " tables with a primary key");
    }
    String bucketKey = opts.get(LayoutOptions.BUCKET_KEY);
    if (bucketKey != null) {
      if (opts.bucket() < 1) {
        throw new IllegalArgumentException(
            "Option 'bucket-key' needs 'bucket' set to a positive number");
      }
      List<String> keys = splitList(bucketKey);
      checkKeys("Bucket key", keys, names);
      for (String k : keys) {
        if (schema.partitionKeys().contains(k)) {
          throw new IllegalArgumentException("Bucket key '" + k + "' must not be a partition key");
        }
        if (!schema.primaryKeys().isEmpty() && !schema.primaryKeys().contains(k)) {
          throw new IllegalArgumentException(
              "Bucket key '" + k + "' of a primary-key table must be part of the primary key");
        }
      }
    }
    String seq = opts.get(PrimaryKeyOptions.SEQUENCE_FIELD);
    if (seq != null && !names.contains(seq)) {
      throw new IllegalArgumentException(
          "Option 'sequence.field' names '"
              + seq
              + "', which is not a column; columns are "
              + names);
    }
    checkFieldOptions(opts, names);
    if (mergeRules && !schema.primaryKeys().isEmpty()) {
      MergeEngineRules.check(schema, opts, names);
    }
    for (String pk : schema.primaryKeys()) {
      LogicalType t = schema.columns().get(names.indexOf(pk)).type();
      if (SupportedTypes.isNested(t)) {
        throw new IllegalArgumentException(
            "Primary key column '" + pk + "' cannot have the nested type " + t.asSummaryString());
      }
    }
    for (String p : schema.partitionKeys()) {
      LogicalType t = schema.columns().get(names.indexOf(p)).type();
      if (SupportedTypes.isNested(t)) {
        throw new IllegalArgumentException(
            "Partition column '" + p + "' cannot have the nested type " + t.asSummaryString());
      }
    }
    String bucketKeyOption = opts.get(LayoutOptions.BUCKET_KEY);
    if (bucketKeyOption != null) {
      for (String k : splitList(bucketKeyOption)) {
        int i = names.indexOf(k);
        if (i >= 0 && SupportedTypes.isNested(schema.columns().get(i).type())) {
          throw new IllegalArgumentException("Bucket key '" + k + "' cannot have a nested type");
        }
      }
    }
    return new TableSchema(
        0,
        fields,
        schema.partitionKeys(),
        schema.primaryKeys(),
        options,
        schema.comment(),
        timeMillis,
        null);
  }

  /**
   * The partition-expiry options that describe a partition's time: only partitioned tables expire
   * partitions, the pattern's {@code $column}s must be partition columns and the formatter must be
   * a pattern (at creation, {@code ALTER TABLE} and for dynamic options).
   *
   * @throws IllegalArgumentException naming the option
   */
  public static void checkPartitionTime(Map<String, String> options, List<String> partitionKeys) {
    String pattern = options.get(CommitOptions.PARTITION_TIMESTAMP_PATTERN.key());
    String formatter = options.get(CommitOptions.PARTITION_TIMESTAMP_FORMATTER.key());
    for (ConfigOption<?> o :
        List.of(
            CommitOptions.PARTITION_EXPIRATION_TIME, CommitOptions.PARTITION_TIMESTAMP_PATTERN)) {
      if (partitionKeys.isEmpty() && options.containsKey(o.key())) {
        throw new IllegalArgumentException(
            "Option '" + o.key() + "' applies only to partitioned tables; this table has none");
      }
    }
    try {
      PartitionTimeExtractor.checkPattern(pattern, partitionKeys);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "Option '" + CommitOptions.PARTITION_TIMESTAMP_PATTERN.key() + "': " + e.getMessage(), e);
    }
    if (formatter != null) {
      try {
        PartitionTimeExtractor.checkFormatter(formatter);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "Option '" + CommitOptions.PARTITION_TIMESTAMP_FORMATTER.key() + "': " + e.getMessage(),
            e);
      }
    }
  }

  private static void checkKeys(String what, List<String> keys, List<String> columns) {
    Set<String> seen = new HashSet<>();
    for (String k : keys) {
      if (!columns.contains(k)) {
        throw new IllegalArgumentException(
            what + " '" + k + "' is not a column; columns are " + columns);
      }
      if (!seen.add(k)) {
        throw new IllegalArgumentException(what + " '" + k + "' is given twice");
      }
    }
  }

  static List<String> splitList(String s) {
    List<String> out = new ArrayList<>();
    for (String part : s.split(",")) {
      if (!part.isBlank()) {
        out.add(part.trim());
      }
    }
    return out;
  }

  @JsonProperty("id")
  public long id() {
    return id;
  }

  @JsonProperty("fields")
  public List<DataField> fields() {
    return fields;
  }

  @JsonProperty("partitionKeys")
  public List<String> partitionKeys() {
    return partitionKeys;
  }

  @JsonProperty("primaryKeys")
  public List<String> primaryKeys() {
    return primaryKeys;
  }

  @JsonProperty("options")
  public Map<String, String> options() {
    return options;
  }

  @JsonProperty("comment")
  public String comment() {
    return comment;
  }

  @JsonProperty("timeMillis")
  public long timeMillis() {
    return timeMillis;
  }

  @JsonIgnore
  public TableOptions tableOptions() {
    return TableOptions.of(options);
  }

  /** The row type of the table's rows. */
  @JsonIgnore
  public RowType rowType() {
    if (rowType == null) {
      List<RowType.RowField> rf = new ArrayList<>();
      for (DataField f : fields) {
        rf.add(new RowType.RowField(f.name(), f.logicalType(), f.description()));
      }
      rowType = new RowType(rf);
    }
    return rowType;
  }

  @JsonIgnore
  public List<String> fieldNames() {
    List<String> names = new ArrayList<>();
    for (DataField f : fields) {
      names.add(f.name());
    }
    return names;
  }

  /** Indexes of the named fields in the row type. */
  public int[] indexes(List<String> names) {
    List<String> all = fieldNames();
    int[] idx = new int[names.size()];
    for (int i = 0; i < idx.length; i++) {
      idx[i] = all.indexOf(names.get(i));
      if (idx[i] < 0) {
        throw new IllegalArgumentException(
            "Unknown field '" + names.get(i) + "'; fields are " + all);
      }
    }
    return idx;
  }

  /** The row type of just the named fields, in the given order. */
  public RowType project(List<String> names) {
    int[] idx = indexes(names);
    List<RowType.RowField> rf = new ArrayList<>();
    for (int i : idx) {
      rf.add(rowType().getFields().get(i));
    }
    return new RowType(rf);
  }

  @JsonIgnore
  public RowType partitionType() {
    return project(partitionKeys);
  }

  /** The key of a primary-key table: its primary key (partition keys included). */
  @JsonIgnore
  public RowType keyType() {
    return project(primaryKeys);
  }

  /** Non-partition primary key columns, hashed to pick a bucket by default. */
  @JsonIgnore
  public List<String> trimmedPrimaryKeys() {
    List<String> out = new ArrayList<>(primaryKeys);
    out.removeAll(partitionKeys);
    return out;
  }

  /** Columns hashed to choose a bucket. */
  @JsonIgnore
  public List<String> bucketKeys() {
    String bk = tableOptions().get(LayoutOptions.BUCKET_KEY);
    if (bk != null) {
      return splitList(bk);
    }
    if (!primaryKeys.isEmpty()) {
      return trimmedPrimaryKeys();
    }
    List<String> out = new ArrayList<>(fieldNames());
    out.removeAll(partitionKeys);
    return out;
  }

  /**
   * The next schema version: this one with {@code changes} applied, validated as at creation
   * (unknown options, bad values and combinations are refused, naming the option). Options fixed at
   * creation ({@link TableOptions#IMMUTABLE}, per-field aggregate functions) cannot change. Column
   * changes follow {@link ColumnChanges}' rules. Nothing is changed when any change is refused.
   * {@code timeMillis}: when the version is made (the catalog's clock).
   */
  public TableSchema apply(List<SchemaChange> changes, long timeMillis) {
    Map<String, String> newOptions = new LinkedHashMap<>(options);
    String newComment = comment;
    ColumnChanges columns = new ColumnChanges(this);
    for (SchemaChange change : changes) {
      if (change instanceof SchemaChange.SetOption set) {
        checkChangeable(set.key(), set.value());
        newOptions.put(set.key(), set.value());
      } else if (change instanceof SchemaChange.RemoveOption remove) {
        checkChangeable(remove.key(), null);
        newOptions.remove(remove.key());
      } else if (change instanceof SchemaChange.UpdateComment update) {
        newComment = update.comment();
      } else {
        columns.apply(change);
      }
    }
    List<DataField> newFields = columns.fields();
    // A table created before the merge rules existed keeps its options (they cannot change): its
    // ALTERs are not refused for them.
    TableSchema checked =
        create(userSchema(newFields, newOptions, newComment), timeMillis, keepsMergeRules());
    return new TableSchema(
        id + 1,
        newFields,
        partitionKeys,
        primaryKeys,
        checked.options(),
        newComment,
        timeMillis,
        columns.highestFieldId());
  }

  /** The largest field id this table ever gave a column (dropped ones included). */
  @JsonProperty("highestFieldId")
  public int highestFieldId() {
    return highestFieldId;
  }

  /**
   * Whether files written with {@code other} have this schema's column layout: the same field ids,
   * names and types in the same order (so their rows and Parquet columns are this schema's).
   * Schemas that differ in options or comments only have the same layout.
   */
  public boolean sameLayout(TableSchema other) {
    if (other == this) {
      return true;
    }
    if (other.fields.size() != fields.size()) {
      return false;
    }
    for (int i = 0; i < fields.size(); i++) {
      DataField a = fields.get(i);
      DataField b = other.fields.get(i);
      if (a.id() != b.id() || !a.name().equals(b.name()) || !a.type().equals(b.type())) {
        return false;
      }
    }
    return true;
  }

  /** The index of the field with id {@code fieldId}, or -1 if this schema has none. */
  public int indexOfFieldId(int fieldId) {
    for (int i = 0; i < fields.size(); i++) {
      if (fields.get(i).id() == fieldId) {
        return i;
      }
    }
    return -1;
  }

  /**
   * The per-field options ({@code fields.<f>.*}) name columns, and {@code ignore-retract} only
   * fields aggregated with min or max: at creation, ALTER TABLE and for dynamic options (where
   * {@code ignore-retract} may be given, as in Paimon).
   *
   * @throws IllegalArgumentException naming the option
   */
  public static void checkFieldOptions(TableOptions opts, List<String> names) {
    for (String f : opts.referencedFields()) {
      if (!names.contains(f)) {
        throw new IllegalArgumentException(
            "Option 'fields." + f + ".*' names an unknown column; columns are " + names);
      }
    }
    Map<String, String> functions = opts.aggregateFunctions();
    for (String f : opts.ignoreRetractFields()) {
      String fn = functions.getOrDefault(f, "last_non_null_value");
      if (!fn.equals("min") && !fn.equals("max")) {
        throw new IllegalArgumentException(
            "Option 'fields."
                + f
                + ".ignore-retract' applies to fields aggregated with min or max in this version;"
                + " field '"
                + f
                + "' uses "
                + fn);
      }
    }
  }

  /** These fields and options, with this schema's keys, as a user's {@link Schema}. */
  private Schema userSchema(List<DataField> fields, Map<String, String> options, String comment) {
    Schema.Builder b = Schema.newBuilder();
    for (DataField f : fields) {
      b.column(f.name(), f.logicalType(), f.description());
    }
    return b.partitionKeys(partitionKeys)
        .primaryKey(primaryKeys)
        .options(options)
        .comment(comment)
        .build();
  }

  /** Whether this schema keeps {@link MergeEngineRules} (one created before them may not). */
  private boolean keepsMergeRules() {
    if (primaryKeys.isEmpty()) {
      return true;
    }
    try {
      MergeEngineRules.check(userSchema(fields, options, comment), tableOptions(), fieldNames());
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  private void checkChangeable(String key, String value) {
    if (key.startsWith("lock.") && !Objects.equals(options.get(key), value)) {
      // a running committer keeps the lock it loaded: two lock settings at once lose commits
      throw new IllegalArgumentException(
          "Option '"
              + key
              + "' cannot be changed by ALTER TABLE: committers already running keep the commit"
              + " lock they loaded, and two lock settings at once can lose commits");
    }
    boolean fixed =
        TableOptions.IMMUTABLE.contains(key)
            || PrimaryKeyOptions.FIELD_AGGREGATE_FUNCTION.matcher(key).matches();
    if (fixed && !Objects.equals(options.get(key), value)) {
      throw new IllegalArgumentException(
          "Option '"
              + key
              + "' is fixed when the table is created and cannot be changed by ALTER TABLE"
              + (key.equals("bucket") ? " (rescaling buckets is not supported yet)" : ""));
    }
  }

  @JsonIgnore
  public boolean hasPrimaryKey() {
    return !primaryKeys.isEmpty();
  }

  /** One column as stored: a stable id, name, Flink type string and description. */
  public record DataField(
      @JsonProperty("id") int id,
      @JsonProperty("name") String name,
      @JsonProperty("type") String type,
      @JsonProperty("description") String description)
      implements Serializable {

    public LogicalType logicalType() {
      return LogicalTypeParser.parse(type, DataField.class.getClassLoader());
    }
  }
}
