package io.sediment.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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
  void theLogFileIsUnderTheUsersSedimentDirectory() {
    if (System.getenv("SEDIMENT_LOG_DIR") == null) {
      assertThat(CliLogging.logFile())
          .isEqualTo(Path.of(System.getProperty("user.home"), ".sediment", "log", "sediment.log"));
    }
  }
}
