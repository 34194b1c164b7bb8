package io.sediment.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.testutil.ChildJvm;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sediment sql} in its own JVM, with the CLI's own logging configuration (log4j2.properties
 * of the jar, not the tests'): whatever Flink logs at WARN or above reaches the terminal's stderr,
 * as it does for a user.
 */
class SqlQuietTest {

  @TempDir Path dir;

  @Test
  void successfulQueriesAndOverwritesPrintNothingOnStderr() throws Exception {
    String statements =
        "CREATE TABLE t (id INT, p STRING) PARTITIONED BY (p);"
            + " INSERT INTO t VALUES (1, 'a'), (2, 'b');"
            + " SELECT * FROM t;"
            + " SELECT count(*) AS n FROM t;"
            + " SELECT p FROM t WHERE id = 2;"
            + " INSERT OVERWRITE t SELECT 3, 'a';"
            + " INSERT OVERWRITE t PARTITION (p = 'b') SELECT 4;"
            + " SELECT id, p FROM t ORDER BY id";
    Path out = dir.resolve("out.txt");
    Path err = dir.resolve("err.txt");
    Process process =
        new ProcessBuilder(
                javaCommand("sql", "--warehouse", dir.resolve("wh").toString(), "-e", statements))
            .redirectOutput(out.toFile())
            .redirectError(err.toFile())
            .start();
    assertThat(process.waitFor(5, TimeUnit.MINUTES)).isTrue();
    String stderr = Files.readString(err, StandardCharsets.UTF_8);
    assertThat(stderr).isEmpty();
    assertThat(process.exitValue()).isZero();
    assertThat(Files.readString(out, StandardCharsets.UTF_8))
        .contains("|  3 | a |\n|  4 | b |\n+----+---+\n2 rows in set");
  }

  /**
   * java with the main classes and the dependencies, without the test classes and their logging.
   */
  private static List<String> javaCommand(String... args) {
    String classPath =
        Arrays.stream(testClassPath().split(File.pathSeparator))
            .filter(e -> !e.endsWith("test-classes") && !e.endsWith("test-classes/"))
            .collect(Collectors.joining(File.pathSeparator));
    List<String> command =
        ChildJvm.java(
            "--add-opens=java.base/java.util=ALL-UNNAMED",
            "--add-opens=java.base/java.lang=ALL-UNNAMED",
            "-cp",
            classPath,
            SedimentCli.class.getName());
    command.addAll(List.of(args));
    return command;
  }

  private static String testClassPath() {
    // Surefire runs the tests from a manifest-only jar; it names the real class path here.
    String surefire = System.getProperty("surefire.test.class.path");
    return surefire != null ? surefire : System.getProperty("java.class.path");
  }
}
