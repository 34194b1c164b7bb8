package io.sediment.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.testutil.SharedMiniCluster;
import io.sediment.testutil.TestClusters;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs every {@code bin/sediment ...} command of docs/quickstart.md, in order, as printed (with
 * {@code ./warehouse} in a temporary directory): each succeeds and prints nothing on stderr, and
 * prints what a {@code # ...} line right after it shows (up to its {@code ...}), so the quick start
 * cannot drift from the CLI.
 */
class QuickstartCommandsTest {

  @RegisterExtension
  static final SharedMiniCluster MINI_CLUSTER = TestClusters.oneTaskManagerTwoSlots();

  @TempDir Path dir;

  @Test
  void everyCommandOfTheQuickStartRunsAsPrinted() throws Exception {
    String doc = Files.readString(Path.of("docs/quickstart.md"), StandardCharsets.UTF_8);
    List<Example> examples = examples(doc);
    assertThat(examples).hasSizeGreaterThanOrEqualTo(7);
    for (Example example : examples) {
      List<String> command = example.command();
      String[] args =
          command.stream()
              .skip(1)
              .map(a -> a.replace("./warehouse", dir.resolve("warehouse").toString()))
              .toArray(String[]::new);
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      int code =
          SedimentCli.run(
              args,
              new PrintStream(out, true, StandardCharsets.UTF_8),
              new PrintStream(err, true, StandardCharsets.UTF_8));
      String what = String.join(" ", command);
      assertThat(code).as(what + "\n" + err.toString(StandardCharsets.UTF_8)).isZero();
      assertThat(err.toString(StandardCharsets.UTF_8)).as(what).isEmpty();
      if (!command.get(1).equals("sql")) { // sql prints to System.out, not the given stream
        assertThat(out.toString(StandardCharsets.UTF_8)).as(what).isNotBlank();
      }
      if (command.equals(List.of("bin/sediment", "demo"))) {
        assertDemoCountsAsShown(doc, out.toString(StandardCharsets.UTF_8));
      }
      if (example.shown() != null) {
        String shown = example.shown();
        int elided = shown.indexOf("...");
        assertThat(out.toString(StandardCharsets.UTF_8))
            .as(what)
            .startsWith(elided < 0 ? shown : shown.substring(0, elided));
      }
    }
  }

  /**
   * The lines of the demo's output in the doc that count files, rows and bytes are the ones the
   * demo prints, in order (its data are the same at every run; the compaction's time is left out).
   */
  private static void assertDemoCountsAsShown(String doc, String printed) {
    int start = doc.indexOf("```\nWarehouse: ") + 4;
    List<String> shown =
        doc.substring(start, doc.indexOf("```", start))
            .lines()
            .filter(line -> line.contains(" bytes"))
            .map(QuickstartCommandsTest::withoutTime)
            .toList();
    assertThat(shown).hasSizeGreaterThanOrEqualTo(7);
    assertThat(printed.lines().map(QuickstartCommandsTest::withoutTime).toList())
        .as("the demo's output in docs/quickstart.md")
        .containsSubsequence(shown);
  }

  private static String withoutTime(String line) {
    return line.replaceAll(" \\(\\d+ ms\\)$", "");
  }

  /** A command of the doc and the output a {@code # ...} line after it shows, or null. */
  record Example(List<String> command, String shown) {}

  /** The {@code bin/sediment} commands of the doc's code blocks, split as a shell would. */
  static List<Example> examples(String doc) {
    List<Example> examples = new ArrayList<>();
    boolean inBlock = false;
    StringBuilder command = null;
    for (String line : doc.split("\n", -1)) {
      if (line.startsWith("```")) {
        inBlock = !inBlock;
        continue;
      }
      if (!inBlock) {
        continue;
      }
      if (command == null && line.startsWith("# ") && !examples.isEmpty()) {
        Example last = examples.remove(examples.size() - 1);
        examples.add(new Example(last.command(), line.substring(2)));
        continue;
      }
      if (command == null && line.startsWith("bin/sediment ")) {
        command = new StringBuilder();
      }
      if (command == null) {
        continue;
      }
      command.append(line).append('\n');
      String text = command.toString();
      if (!text.endsWith("\\\n") && balancedQuotes(text)) {
        examples.add(new Example(words(text), null));
        command = null;
      }
    }
    return examples;
  }

  private static boolean balancedQuotes(String text) {
    char quote = 0;
    for (char c : text.toCharArray()) {
      if (quote == 0 && (c == '"' || c == '\'')) {
        quote = c;
      } else if (c == quote) {
        quote = 0;
      }
    }
    return quote == 0;
  }

  /** Words of a command: quotes group and are removed, backslash-newline joins lines. */
  private static List<String> words(String text) {
    List<String> words = new ArrayList<>();
    StringBuilder word = null;
    char quote = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (quote != 0) {
        if (c == quote) {
          quote = 0;
        } else {
          word.append(c);
        }
      } else if (c == '"' || c == '\'') {
        quote = c;
        word = word == null ? new StringBuilder() : word;
      } else if (c == '\\' && i + 1 < text.length() && text.charAt(i + 1) == '\n') {
        i++;
      } else if (Character.isWhitespace(c)) {
        if (word != null) {
          words.add(word.toString());
          word = null;
        }
      } else {
        word = word == null ? new StringBuilder() : word;
        word.append(c);
      }
    }
    if (word != null) {
      words.add(word.toString());
    }
    return words;
  }
}
