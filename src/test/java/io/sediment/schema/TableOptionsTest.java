package io.sediment.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.util.TimeUtils;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Table options: every option in docs/configuration.md is declared with the documented type,
 * default and allowed values (and every declared option is documented), values parse as the "Value
 * syntax" table says, and bad keys and values are rejected with messages naming them.
 */
class TableOptionsTest {

  private static final String AGGREGATE_FUNCTION_KEY = "fields.<f>.aggregate-function";
  private static final String IGNORE_RETRACT_KEY = "fields.<f>.ignore-retract";

  // ---- docs/configuration.md is the user-facing copy of the option list -----------------------

  /** One row of an option table of docs/configuration.md. */
  private record DocumentedOption(String key, String type, String defaultValue, String allowed) {}

  private static List<DocumentedOption> documentedOptions() throws IOException {
    List<DocumentedOption> out = new ArrayList<>();
    boolean inOptionTable = false;
    for (String line : Files.readAllLines(Paths.get("docs/configuration.md"))) {
      if (line.startsWith("| key | type | default |")) {
        inOptionTable = true;
        continue;
      }
      if (!line.startsWith("|")) {
        inOptionTable = false;
        continue;
      }
      if (!inOptionTable || line.startsWith("| ---")) {
        continue;
      }
      String[] cells = line.split("\\|", -1);
      out.add(
          new DocumentedOption(
              unquote(cells[1].trim()), cells[2].trim(), cells[3].trim(), cells[4].trim()));
    }
    return out;
  }

  private static String unquote(String cell) {
    return cell.startsWith("`") && cell.endsWith("`") && cell.indexOf('`', 1) == cell.length() - 1
        ? cell.substring(1, cell.length() - 1)
        : cell;
  }

  @Test
  void theDocsListEveryDeclaredOptionAndNoOther() throws IOException {
    List<String> documented = new ArrayList<>();
    for (DocumentedOption o : documentedOptions()) {
      documented.add(o.key());
    }
    assertThat(documented)
        .doesNotHaveDuplicates()
        .contains(AGGREGATE_FUNCTION_KEY, IGNORE_RETRACT_KEY);
    documented.remove(AGGREGATE_FUNCTION_KEY);
    documented.remove(IGNORE_RETRACT_KEY);
    assertThat(documented).containsExactlyInAnyOrderElementsOf(TableOptions.all().keySet());
  }

  /**
   * Each option's rule is declared with it; its words are the docs' "allowed" column (up to a ";"),
   * so the docs cannot drift from the check, and documentedAllowedValuesAreTheValidatedOnes then
   * tries each rule's boundaries.
   */
  @Test
  void everyDeclaredRuleIsWhatTheDocsSayItAllows() throws IOException {
    SoftAssertions soft = new SoftAssertions();
    int ruled = 0;
    for (DocumentedOption doc : documentedOptions()) {
      if (!TableOptions.all().containsKey(doc.key())) {
        continue; // per-field options, checked in aggregateFunctionsAreCheckedPerField
      }
      String allowed = TableOptions.rule(doc.key()).allowed();
      String documented = doc.allowed().split(";")[0].trim();
      if (allowed.isEmpty()) {
        soft.assertThat(documented)
            .as("%s has no value rule, so the docs name none", doc.key())
            .doesNotContain("≥", "> 0", "(any case)", "–");
      } else {
        ruled++;
        soft.assertThat(documented).as("allowed values of %s", doc.key()).isEqualTo(allowed);
      }
    }
    soft.assertThat(ruled).as("options with a value rule").isGreaterThan(40);
    soft.assertAll();
  }

  /** Every option constant of the option classes is declared (and so validated and documented). */
  @Test
  void everyOptionConstantIsDeclaredWithARule() throws IllegalAccessException {
    List<String> constants = new ArrayList<>();
    for (Class<?> holder :
        List.of(
            LayoutOptions.class,
            CompactionOptions.class,
            PrimaryKeyOptions.class,
            ScanOptions.class,
            CommitOptions.class,
            TagOptions.class,
            TableOptions.class)) {
      for (Field f : holder.getDeclaredFields()) {
        if (f.getType() == ConfigOption.class && Modifier.isStatic(f.getModifiers())) {
          ConfigOption<?> option = (ConfigOption<?>) f.get(null);
          constants.add(option.key());
          assertThat(TableOptions.all().get(option.key())).as(f.getName()).isSameAs(option);
          assertThat(TableOptions.rule(option.key())).as(f.getName()).isNotNull();
        }
      }
    }
    assertThat(constants).doesNotHaveDuplicates().hasSameSizeAs(TableOptions.all().keySet());
  }

  @Test
  void documentedTypesAreTheDeclaredTypes() throws IOException {
    SoftAssertions soft = new SoftAssertions();
    for (DocumentedOption doc : documentedOptions()) {
      ConfigOption<?> option = TableOptions.all().get(doc.key());
      if (option == null) {
        continue; // per-field options, checked elsewhere
      }
      Sample sample = sampleOf(doc.type());
      String text = sample.text;
      if (sample.type == String.class) {
        text = option.hasDefaultValue() ? (String) option.defaultValue() : "x";
      }
      Object value = TableOptions.of(Map.of(doc.key(), text)).get(option);
      soft.assertThat(value)
          .as("%s is documented as %s", doc.key(), doc.type())
          .isInstanceOf(sample.type);
    }
    soft.assertAll();
  }

  private record Sample(String text, Class<?> type) {}

  private static Sample sampleOf(String docType) {
    if (docType.startsWith("string")) {
      return new Sample("x", String.class);
    }
    switch (docType) {
      case "integer":
        return new Sample("3", Integer.class);
      case "long":
        return new Sample("3", Long.class);
      case "number":
        return new Sample("0.5", Double.class);
      case "boolean":
        return new Sample("true", Boolean.class);
      case "memory size":
        return new Sample("1 mb", MemorySize.class);
      case "duration":
        return new Sample("1 s", Duration.class);
      default:
        throw new AssertionError("Type '" + docType + "' is not in the docs' Value syntax table");
    }
  }

  @Test
  void documentedDefaultsAreTheDeclaredDefaults() throws IOException {
    SoftAssertions soft = new SoftAssertions();
    TableOptions none = TableOptions.of(Map.of());
    for (DocumentedOption doc : documentedOptions()) {
      ConfigOption<?> option = TableOptions.all().get(doc.key());
      if (option == null) {
        // per-field options: an aggregate function has no default, ignore-retract is false
        soft.assertThat(doc.defaultValue())
            .as(doc.key())
            .isEqualTo(doc.key().equals(IGNORE_RETRACT_KEY) ? "`false`" : "none");
        continue;
      }
      String shown = doc.defaultValue();
      if (shown.equals("none")) {
        soft.assertThat(option.hasDefaultValue()).as("%s has no default", doc.key()).isFalse();
        soft.assertThat(none.get(option)).as(doc.key()).isNull();
      } else if (isLiteral(shown) && !shown.contains("<")) {
        soft.assertThat(option.hasDefaultValue()).as("%s has a default", doc.key()).isTrue();
        if (option.hasDefaultValue()) {
          soft.assertThat(parse(doc.type(), unquote(shown)))
              .as("default of %s, documented as %s", doc.key(), shown)
              .isEqualTo(option.defaultValue());
        }
      } else {
        // A default the code derives; each needs its own check.
        soft.assertThat(derivedDefaultChecks())
            .as("a check of the derived default of %s ('%s')", doc.key(), shown)
            .containsKey(doc.key());
      }
    }
    soft.assertAll();
  }

  private static boolean isLiteral(String cell) {
    return cell.startsWith("`") && cell.endsWith("`");
  }

  private static Map<String, String> derivedDefaultChecks() {
    return Map.of(
        "compaction.parallelism", "number of cores, at most 4",
        "num-sorted-run.stop-trigger", "compaction trigger + 3",
        "num-levels", "compaction trigger + 1",
        "local-cache.dir", "`<java.io.tmpdir>/sediment-cache`",
        "compaction.copy.min-row-group-size", "half of `parquet.row-group-size`");
  }

  @Test
  void derivedDefaultsAreWhatTheDocsSay() throws IOException {
    for (DocumentedOption doc : documentedOptions()) {
      if (derivedDefaultChecks().containsKey(doc.key())) {
        assertThat(doc.defaultValue())
            .as(doc.key())
            .isEqualTo(derivedDefaultChecks().get(doc.key()));
      }
    }
    TableOptions none = TableOptions.of(Map.of());
    int cores = Runtime.getRuntime().availableProcessors();
    assertThat(none.get(CompactionOptions.COMPACTION_PARALLELISM))
        .isEqualTo(Math.max(1, Math.min(4, cores)));
    assertThat(none.numSortedRunCompactionTrigger()).isEqualTo(5);
    assertThat(none.numSortedRunStopTrigger()).isEqualTo(8);
    assertThat(none.numLevels()).isEqualTo(6);
    TableOptions trigger7 = TableOptions.of(Map.of("num-sorted-run.compaction-trigger", "7"));
    assertThat(trigger7.numSortedRunStopTrigger()).isEqualTo(10);
    assertThat(trigger7.numLevels()).isEqualTo(8);
    // "Values below the compaction trigger act as the compaction trigger."
    assertThat(
            TableOptions.of(Map.of("num-sorted-run.stop-trigger", "2")).numSortedRunStopTrigger())
        .isEqualTo(5);
    assertThat(PrimaryKeyOptions.LOCAL_CACHE_DIR.hasDefaultValue()).isFalse();
  }

  private static Object parse(String docType, String text) {
    Sample sample = sampleOf(docType);
    if (sample.type == Integer.class) {
      return Integer.parseInt(text);
    } else if (sample.type == Double.class) {
      return Double.parseDouble(text);
    } else if (sample.type == Boolean.class) {
      return Boolean.parseBoolean(text);
    } else if (sample.type == MemorySize.class) {
      return MemorySize.parse(text);
    } else if (sample.type == Duration.class) {
      return TimeUtils.parseDuration(text);
    }
    return text;
  }

  private static final Pattern AT_LEAST = Pattern.compile("≥ (-?\\d+)");
  private static final Pattern BETWEEN = Pattern.compile("(\\d+)–(\\d+)");
  private static final Pattern BACKTICKED = Pattern.compile("`([^`]+)`");

  /**
   * The "allowed" column, for the forms it uses: a lower bound, a range, "> 0", "> 0 and ≤ 1", "< 2
   * GiB" and lists of values. The boundary values are accepted, the ones just outside rejected with
   * a message naming the option.
   */
  @Test
  void documentedAllowedValuesAreTheValidatedOnes() throws IOException {
    SoftAssertions soft = new SoftAssertions();
    int checked = 0;
    for (DocumentedOption doc : documentedOptions()) {
      String key = doc.key();
      String allowed = doc.allowed();
      if (!TableOptions.all().containsKey(key) || allowed.isEmpty()) {
        continue;
      }
      List<String> accepted = new ArrayList<>();
      List<String> rejected = new ArrayList<>();
      Matcher atLeast = AT_LEAST.matcher(allowed);
      Matcher between = BETWEEN.matcher(allowed);
      if (allowed.equals("`-1`, or ≥ 1")) {
        accepted.addAll(List.of("-1", "1"));
        rejected.addAll(List.of("0", "-2"));
      } else if (atLeast.matches()) {
        int min = Integer.parseInt(atLeast.group(1));
        accepted.add(Integer.toString(min));
        rejected.add(Integer.toString(min - 1));
      } else if (between.matches()) {
        int min = Integer.parseInt(between.group(1));
        int max = Integer.parseInt(between.group(2));
        accepted.addAll(List.of(Integer.toString(min), Integer.toString(max)));
        rejected.addAll(List.of(Integer.toString(min - 1), Integer.toString(max + 1)));
      } else if (allowed.equals("> 0") && doc.type().equals("memory size")) {
        accepted.add("1 b");
        rejected.add("0 b");
      } else if (allowed.equals("> 0") && doc.type().equals("duration")) {
        accepted.add("1 ms");
        rejected.addAll(List.of("0 ms", "-1 s"));
      } else if (allowed.equals("> 0 and ≤ 1")) {
        accepted.addAll(List.of("0.01", "1"));
        rejected.addAll(List.of("0", "1.01", "-0.5"));
      } else if (allowed.equals("> 0 and < 2 GiB")) {
        // The upper bound is checked in pageSizesOf2GiBAndMoreAreRejected.
        accepted.addAll(List.of("1 b", "2047 mb"));
        rejected.add("0 b");
      } else if (allowed.endsWith("(any case)")) {
        Matcher values = BACKTICKED.matcher(allowed);
        while (values.find()) {
          accepted.add(values.group(1));
          accepted.add(values.group(1).toUpperCase(Locale.ROOT));
        }
        rejected.add("no-such-value");
      } else {
        continue; // a description the code checks elsewhere (columns, directories)
      }
      checked++;
      for (String v : accepted) {
        soft.assertThatCode(() -> TableOptions.of(withCompanion(key, v)))
            .as("%s = '%s' (allowed: %s)", key, v, allowed)
            .doesNotThrowAnyException();
      }
      for (String v : rejected) {
        soft.assertThat(catchThrowable(() -> TableOptions.of(Map.of(key, v))))
            .as("%s = '%s' (allowed: %s) is rejected", key, v, allowed)
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("'" + key + "'")
            .hasMessageContaining("'" + v + "'");
      }
    }
    soft.assertThat(checked).as("options whose allowed values were checked").isGreaterThan(15);
    soft.assertAll();
  }

  @Test
  void scanOptionsThatDoNotGoTogetherAreRefusedNamingThem() {
    Map<String, String> starts =
        Map.of(
            "scan.snapshot-id",
            "3",
            "scan.timestamp-millis",
            "5",
            "scan.tag-name",
            "t1",
            "scan.watermark",
            "1000");
    for (String a : starts.keySet()) {
      for (String b : starts.keySet()) {
        if (a.compareTo(b) < 0) {
          assertThatThrownBy(() -> TableOptions.of(Map.of(a, starts.get(a), b, starts.get(b))))
              .as(a + " with " + b)
              .hasMessageContaining(
                  "give one of 'scan.snapshot-id', 'scan.timestamp-millis', 'scan.tag-name' and"
                      + " 'scan.watermark'");
        }
      }
    }
    for (String mode : List.of("latest", "latest-full", "from-snapshot-full", "from-timestamp")) {
      assertThatThrownBy(() -> TableOptions.of(Map.of("scan.mode", mode, "scan.tag-name", "t1")))
          .hasMessageContaining("'scan.tag-name' goes with scan.mode 'from-snapshot'");
      assertThatThrownBy(() -> TableOptions.of(Map.of("scan.mode", mode, "scan.watermark", "-5")))
          .hasMessageContaining("'scan.watermark' goes with scan.mode 'from-snapshot'")
          .hasMessageContaining("not '" + mode + "'");
    }
    assertThat(
            TableOptions.of(Map.of("scan.mode", "FROM-SNAPSHOT", "scan.watermark", "-5"))
                .get(ScanOptions.SCAN_WATERMARK))
        .isEqualTo(-5L); // event times before 1970 are watermarks too
    assertThatThrownBy(() -> TableOptions.of(Map.of("scan.watermark", "10:00")))
        .hasMessageContaining("scan.watermark");
    assertThat(
            TableOptions.of(Map.of("scan.mode", "from-snapshot", "scan.tag-name", "t1"))
                .get(ScanOptions.SCAN_TAG_NAME))
        .isEqualTo("t1");
    assertThatThrownBy(() -> TableOptions.of(Map.of("scan.mode", "from-snapshot")))
        .hasMessageContaining(
            "scan.mode 'from-snapshot' needs 'scan.snapshot-id', 'scan.tag-name' or"
                + " 'scan.watermark'");
    assertThatThrownBy(
            () -> TableOptions.of(Map.of("scan.mode", "latest", "scan.snapshot-id", "3")))
        .hasMessageContaining("'scan.snapshot-id' goes with scan.mode 'from-snapshot'")
        .hasMessageContaining("not 'latest'");
    assertThatThrownBy(
            () ->
                TableOptions.of(Map.of("scan.mode", "from-snapshot", "scan.timestamp-millis", "3")))
        .hasMessageContaining("scan.mode 'from-snapshot' needs 'scan.snapshot-id'");
    assertThatThrownBy(() -> TableOptions.of(Map.of("scan.mode", "from-timestamp")))
        .hasMessageContaining("scan.mode 'from-timestamp' needs 'scan.timestamp-millis'");
    assertThat(TableOptions.of(Map.of("scan.snapshot-id", "3")).get(ScanOptions.SCAN_SNAPSHOT_ID))
        .isEqualTo(3L);
  }

  /** The option alone, or with the option its value needs (a scan mode's snapshot id or time). */
  private static Map<String, String> withCompanion(String key, String value) {
    String v = value.toLowerCase(Locale.ROOT);
    if (key.equals("scan.mode") && v.startsWith("from-snapshot")) {
      return Map.of(key, value, "scan.snapshot-id", "1");
    }
    if (key.equals("scan.mode") && v.equals("from-timestamp")) {
      return Map.of(key, value, "scan.timestamp-millis", "0");
    }
    return Map.of(key, value);
  }

  /**
   * Parquet pages are sized by an int: the docs allow "> 0 and < 2 GiB" and promise that values out
   * of range are rejected naming the option.
   */
  @Test
  void pageSizesOf2GiBAndMoreAreRejected() {
    for (String v : List.of("2 gb", "4 gb", "5 gb", "4097 mb")) {
      assertThatThrownBy(() -> TableOptions.of(Map.of("parquet.page-size", v)))
          .as(v)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("'parquet.page-size'");
    }
  }

  // ---- value syntax ---------------------------------------------------------------------------

  @ParameterizedTest
  @CsvSource({
    "128 mb, 134217728",
    "128mb, 134217728",
    "1g, 1073741824",
    "1 gb, 1073741824",
    "1048576, 1048576",
    "10 b, 10",
    "64kb, 65536",
    "64 k, 65536",
    "2m, 2097152",
    "1 t, 1099511627776",
    "1 tb, 1099511627776"
  })
  void memorySizesParseWithOptionalUnitsInPowersOf1024(String text, long bytes) {
    assertThat(TableOptions.of(Map.of("target-file-size", text)).targetFileSize()).isEqualTo(bytes);
  }

  @ParameterizedTest
  @CsvSource({
    "10 s, 10000",
    "10s, 10000",
    "1 min, 60000",
    "500, 500",
    "250 ms, 250",
    "2 h, 7200000",
    "1 d, 86400000"
  })
  void durationsParseWithOptionalUnitsAndMillisecondsByDefault(String text, long millis) {
    assertThat(
            TableOptions.of(Map.of("compaction.discovery-interval", text))
                .get(CompactionOptions.COMPACTION_DISCOVERY_INTERVAL))
        .isEqualTo(Duration.ofMillis(millis));
  }

  @ParameterizedTest
  @CsvSource({"true, true", "TRUE, true", "True, true", "false, false", "FALSE, false"})
  void booleansParseInAnyCase(String text, boolean value) {
    assertThat(
            TableOptions.of(Map.of("compaction.full", text)).get(CompactionOptions.COMPACTION_FULL))
        .isEqualTo(value);
  }

  @ParameterizedTest
  @CsvSource({
    "compaction.full, yes, true or false",
    "compaction.full, 1, true or false",
    "bucket, five, an integer",
    "bucket, 1.5, an integer",
    "compaction.small-file-ratio, half, a number",
    "target-file-size, lots, a memory size",
    "compaction.discovery-interval, soon, a duration",
    // options without a default: the rule says what kind of value they take
    "scan.snapshot-id, latest, an integer",
    "compaction.copy.min-row-group-size, big, a memory size",
    "compaction.trigger.max-delay, later, a duration"
  })
  void valuesThatDoNotParseAreRejectedNamingTheOptionAndTheExpectedType(
      String key, String value, String expected) {
    assertThatThrownBy(() -> TableOptions.of(Map.of(key, value)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("Invalid value '" + value + "' for option '" + key + "'")
        .hasMessageContaining("expected " + expected);
  }

  // ---- invalid values and unknown keys --------------------------------------------------------

  @Test
  void theDocumentedExampleMessagesAreTheRealOnes() {
    assertThatThrownBy(() -> TableOptions.of(Map.of("bucket", "0")))
        .hasMessage(
            "Invalid value '0' for option 'bucket': must be -1 (no buckets) or a positive number");
    assertThatThrownBy(() -> TableOptions.of(Map.of("nope", "1")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(
            "Unknown table option(s) [nope]; known options are [aggregation.remove-record-on-delete,"
                + " bucket, bucket-key, ")
        .hasMessageEndingWith(
            "], fields.<field>.aggregate-function and fields.<field>.ignore-retract");
  }

  @Test
  void unknownOptionsAreAllNamedWithEveryKnownOption() {
    Map<String, String> options = new LinkedHashMap<>();
    options.put("bucket", "2");
    options.put("target-file-sise", "1 mb");
    options.put("compaction.ful", "true");
    assertThatThrownBy(() -> TableOptions.of(options))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("[target-file-sise, compaction.ful]")
        .satisfies(
            e -> {
              for (String key : TableOptions.all().keySet()) {
                assertThat(e.getMessage()).contains(key);
              }
            });
  }

  @Test
  void enumeratedValuesAreRejectedListingTheAllowedOnes() {
    assertThatThrownBy(() -> TableOptions.of(Map.of("file.compression", "lzo")))
        .hasMessage(
            "Invalid value 'lzo' for option 'file.compression': allowed: [zstd, snappy, gzip,"
                + " lz4_raw, uncompressed]");
    assertThatThrownBy(() -> TableOptions.of(Map.of("merge-engine", "last-row")))
        .hasMessage(
            "Invalid value 'last-row' for option 'merge-engine': allowed: [deduplicate,"
                + " partial-update, aggregation, first-row]");
  }

  @Test
  void aggregateFunctionsAreCheckedPerField() {
    TableOptions options =
        TableOptions.of(
            Map.of(
                "fields.total.aggregate-function", "SUM", "fields.seen.aggregate-function", "max"));
    assertThat(options.aggregateFunctions())
        .containsEntry("total", "sum")
        .containsEntry("seen", "max");
    assertThat(options.referencedFields()).containsExactlyInAnyOrder("total", "seen");

    assertThatThrownBy(() -> TableOptions.of(Map.of("fields.total.aggregate-function", "median")))
        .hasMessage(
            "Invalid value 'median' for option 'fields.total.aggregate-function'; allowed: [sum,"
                + " min, max, count, last_value, last_non_null_value]");
    // A field name with a dot is not a per-field option.
    assertThatThrownBy(() -> TableOptions.of(Map.of("fields.a.b.aggregate-function", "sum")))
        .hasMessageContaining("Unknown table option(s) [fields.a.b.aggregate-function]");
  }

  // ---- stored and dynamic options -------------------------------------------------------------

  @Test
  void optionsAreKeptAsGivenWithoutDefaults() {
    TableOptions options = TableOptions.of(Map.of("bucket", "4"));
    assertThat(options.toMap()).containsExactly(Map.entry("bucket", "4"));
    assertThat(options.bucket()).isEqualTo(4);
    assertThat(options.targetFileSize()).isEqualTo(128L << 20);
    assertThat(options.compression()).isEqualTo("zstd");
    assertThat(options.mergeEngine()).isEqualTo("deduplicate");
    assertThat(options.writeOnly()).isFalse();
  }

  @Test
  void dynamicOptionsOverrideAndAreValidated() {
    TableOptions stored = TableOptions.of(Map.of("bucket", "4", "target-file-size", "1 mb"));
    TableOptions dynamic =
        stored.with(Map.of("target-file-size", "2 mb", "compaction.full", "true"));
    assertThat(dynamic.targetFileSize()).isEqualTo(2L << 20);
    assertThat(dynamic.get(CompactionOptions.COMPACTION_FULL)).isTrue();
    assertThat(dynamic.bucket()).isEqualTo(4);
    assertThat(stored.targetFileSize()).isEqualTo(1L << 20);

    assertThatThrownBy(() -> stored.with(Map.of("target-file-size", "0 b")))
        .hasMessageContaining("'target-file-size'");
    assertThatThrownBy(() -> stored.with(Map.of("nope", "1")))
        .hasMessageContaining("Unknown table option(s) [nope]");
  }

  @Test
  void optionsFixedAtCreationCannotBeGivenDynamically() {
    TableOptions stored = TableOptions.of(Map.of("bucket", "4"));
    for (String key : TableOptions.IMMUTABLE) {
      assertThatThrownBy(() -> stored.with(Map.of(key, "x")))
          .as(key)
          .hasMessage(
              "Option '"
                  + key
                  + "' is fixed when the table is created and cannot be given as a dynamic option");
    }
    assertThatThrownBy(() -> stored.with(Map.of("fields.v.aggregate-function", "sum")))
        .hasMessageContaining("'fields.v.aggregate-function' is fixed");
    assertThatCode(() -> stored.with(Map.of())).doesNotThrowAnyException();
  }
}
