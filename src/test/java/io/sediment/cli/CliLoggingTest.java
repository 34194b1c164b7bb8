package io.sediment.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.logging.ConsoleHandler;
import org.apache.logging.log4j.core.config.Configurator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/** The CLI's logs go to its log file, and to the terminal only with {@code --verbose}. */
class CliLoggingTest {

  @TempDir Path dir;

  @AfterEach
  void restoreTheTestsLogging() {
    Configurator.reconfigure();
  }

  @Test
  void warningsOfFlinkAndSedimentsProgressGoToTheFileOnly() throws Exception {
    Path file = dir.resolve("sediment.log");
    CliLogging.configure(file, null);

    LoggerFactory.getLogger("org.apache.flink.runtime.util.HadoopUtils")
        .warn("Could not find Hadoop configuration");
    LoggerFactory.getLogger("org.apache.flink.runtime.minicluster.MiniCluster")
        .info("Starting Flink Mini Cluster");
    LoggerFactory.getLogger("io.sediment.flink.CompactJob").info("Compacted db.t");

    String log = Files.readString(file, StandardCharsets.UTF_8);
    assertThat(log)
        .as("every line names its process: runs share the file")
        .contains("[" + ProcessHandle.current().pid() + "] WARN  HadoopUtils - Could not find")
        .contains("WARN  HadoopUtils - Could not find Hadoop configuration")
        .contains("INFO  CompactJob - Compacted db.t")
        .doesNotContain("Starting Flink Mini Cluster");
  }

  /** The AWS SDK 1.x in Flink's S3 plugin logs through java.util.logging, to stderr by default. */
  @Test
  void recordsOfJavaUtilLoggingGoToTheFileNotToStderr() throws Exception {
    Path file = dir.resolve("sediment.log");
    CliLogging.configure(file, null);

    java.util.logging.Logger.getLogger("com.amazonaws.util.VersionInfoUtils")
        .warning("The AWS SDK for Java 1.x entered maintenance mode");
    java.util.logging.Logger.getLogger("com.amazonaws.http.AmazonHttpClient").info("request");

    assertThat(java.util.logging.Logger.getLogger("").getHandlers())
        .noneMatch(h -> h instanceof ConsoleHandler);
    assertThat(Files.readString(file, StandardCharsets.UTF_8))
        .contains("WARN  VersionInfoUtils - The AWS SDK for Java 1.x entered maintenance mode")
        .doesNotContain("request");
  }

  @Test
  void verboseAlsoPrintsThemOnTheTerminal() throws Exception {
    Path file = dir.resolve("sediment.log");
    ByteArrayOutputStream terminal = new ByteArrayOutputStream();
    CliLogging.configure(file, terminal);

    LoggerFactory.getLogger("org.apache.hadoop.util.NativeCodeLoader")
        .warn("Unable to load native-hadoop library");

    assertThat(terminal.toString(StandardCharsets.UTF_8))
        .contains("WARN  NativeCodeLoader - Unable to load native-hadoop library");
    assertThat(Files.readString(file, StandardCharsets.UTF_8))
        .contains("Unable to load native-hadoop library");
  }

  @Test
  void eachRunHasALogFileOfItsOwnAndTheOldestAreDeleted() throws Exception {
    if (System.getenv("SEDIMENT_LOG_DIR") == null) {
      assertThat(CliLogging.logDir())
          .isEqualTo(Path.of(System.getProperty("user.home"), ".sediment", "log"));
    }
    Path file = CliLogging.logFile(dir);
    assertThat(file.getFileName().toString())
        .matches("sediment-\\d{8}-\\d{6}-" + ProcessHandle.current().pid() + "\\.log");
    for (int i = 0; i < 40; i++) {
      Files.writeString(
          dir.resolve(String.format("sediment-20261201-1200%02d-%d.log", i, 100 + i)), "x");
    }
    Files.writeString(dir.resolve("notes.txt"), "mine");
    CliLogging.deleteOldLogs(dir, 29);
    try (var files = Files.list(dir)) {
      List<String> left = files.map(f -> f.getFileName().toString()).sorted().toList();
      assertThat(left).hasSize(30).contains("notes.txt", "sediment-20261201-120039-139.log");
      assertThat(left).doesNotContain("sediment-20261201-120010-110.log");
    }
  }
}
