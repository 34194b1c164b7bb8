package io.sediment.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.testutil.ChildJvm;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the commands the docs print, so the docs cannot drift from the code: every fenced block
 * tagged {@code sh} in {@code README.md} and {@code docs/*.md} is run as printed, the blocks of one
 * page in order as one bash script ({@code set -e}), from a fresh directory that looks like a build
 * tree ({@code target/}, {@code bin/}, {@code flink-conf/} of this build). {@code sediment} is
 * {@code bin/sediment} when there is one, else {@code java -jar target/sediment.jar}; {@code mvn}
 * is a no-op there (the build that runs this test has just done what the docs' Maven lines do).
 * Blocks that show syntax or output are untagged or {@code text} and are not run; the cluster
 * commands are run by {@link io.sediment.cluster.LocalClusterIT}. A page whose commands use the
 * quick start's {@code ./warehouse} (and do not create it) runs after the quick start's commands,
 * in the same directory, as a reader who followed the quick start would.
 *
 * <p>Runs after {@code package}, in {@code mvn verify}.
 */
class DocsCommandsIT {

  private static final Pattern SH_BLOCK = Pattern.compile("(?m)^```sh\\n(.*?)^```", Pattern.DOTALL);
  private static final Path REPO = Paths.get("").toAbsolutePath();

  @TempDir Path work;

  @TestFactory
  Stream<DynamicTest> everyShellBlockOfTheDocsRunsAsPrinted() throws IOException {
    assertThat(REPO.resolve("target/sediment.jar")).as("built by mvn package").exists();
    List<Path> pages = new ArrayList<>();
    pages.add(REPO.resolve("README.md"));
    try (Stream<Path> docs = Files.list(REPO.resolve("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
    }
    List<String> quickstart =
        shellBlocks(Files.readString(REPO.resolve("docs/quickstart.md"), StandardCharsets.UTF_8));
    List<DynamicTest> tests = new ArrayList<>();
    for (Path page : pages) {
      List<String> blocks = shellBlocks(Files.readString(page, StandardCharsets.UTF_8));
      if (!blocks.isEmpty()
          && !page.endsWith("quickstart.md")
          && String.join("\n", blocks).contains("./warehouse")) {
        List<String> afterQuickstart = new ArrayList<>(quickstart);
        afterQuickstart.addAll(blocks);
        blocks = afterQuickstart;
      }
      if (!blocks.isEmpty()) {
        String name = REPO.relativize(page).toString();
        List<String> script = blocks;
        tests.add(DynamicTest.dynamicTest(name, () -> run(name, script)));
      }
    }
    assertThat(tests).as("pages with runnable sh blocks").isNotEmpty();
    return tests.stream();
  }

  static List<String> shellBlocks(String markdown) {
    List<String> out = new ArrayList<>();
    Matcher m = SH_BLOCK.matcher(markdown);
    while (m.find()) {
      out.add(m.group(1));
    }
    return out;
  }

  private void run(String page, List<String> blocks) throws Exception {
    Path dir = Files.createDirectories(work.resolve(page.replace('/', '_')));
    for (String link : List.of("target", "bin", "flink-conf")) {
      if (Files.exists(REPO.resolve(link))) {
        Files.createSymbolicLink(dir.resolve(link), REPO.resolve(link));
      }
    }
    Path shims = Files.createDirectories(dir.resolve(".shims"));
    Path launcher = REPO.resolve("bin/sediment");
    writeExecutable(
        shims.resolve("sediment"),
        Files.isExecutable(launcher)
            ? "exec '" + launcher + "' \"$@\"\n"
            : "exec java -jar '" + REPO.resolve("target/sediment.jar") + "' \"$@\"\n");
    writeExecutable(
        shims.resolve("mvn"), "echo \"(docs test: mvn $* already done by this build)\"\n");
    StringBuilder script = new StringBuilder("set -euo pipefail\n");
    for (String block : blocks) {
      script.append(block).append('\n');
    }
    Path file = dir.resolve(".commands.sh");
    Files.writeString(file, script.toString(), StandardCharsets.UTF_8);

    ProcessBuilder pb = new ProcessBuilder("bash", file.toString()).directory(dir.toFile());
    pb.environment().put("PATH", shims + ":" + System.getenv("PATH"));
    pb.environment().put("SEDIMENT_JAVA_OPTS", ChildJvm.options());
    pb.redirectErrorStream(true);
    Path log = dir.resolve(".output.txt");
    pb.redirectOutput(log.toFile());
    Process p = pb.start();
    if (!p.waitFor(10, TimeUnit.MINUTES)) {
      p.destroyForcibly();
    }
    String output = Files.readString(log, StandardCharsets.UTF_8);
    assertThat(p.exitValue())
        .as("the sh blocks of %s exit 0; script:%n%s%noutput:%n%s", page, script, output)
        .isZero();
    assertThat(output)
        .as("the commands of %s print no stack trace", page)
        .doesNotContainPattern("(?m)^\\s+at [\\w.$]+\\(");
  }

  private static void writeExecutable(Path file, String body) throws IOException {
    Files.writeString(file, "#!/usr/bin/env bash\n" + body, StandardCharsets.UTF_8);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
  }
}
