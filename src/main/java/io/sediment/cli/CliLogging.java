package io.sediment.cli;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.Appender;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.OutputStreamAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.Configurator;
import org.apache.logging.log4j.core.config.builder.api.ConfigurationBuilder;
import org.apache.logging.log4j.core.config.builder.api.ConfigurationBuilderFactory;
import org.apache.logging.log4j.core.config.builder.impl.BuiltConfiguration;
import org.apache.logging.log4j.core.layout.PatternLayout;
import org.apache.logging.log4j.jul.Log4jBridgeHandler;

/**
 * Where the CLI's logs go: to a log file, so that a successful command prints its result and
 * nothing else (Flink and Hadoop warn about missing Hadoop configuration, native libraries and
 * delegation tokens on every run; {@code java.util.logging}'s records go there too), and with
 * {@code --verbose} to the terminal too. Each run has a file of its own, {@code
 * sediment-<yyyyMMdd-HHmmss>-<pid>.log} in {@code $SEDIMENT_LOG_DIR}, else in {@code
 * ~/.sediment/log} (so runs at the same time do not interleave); the newest {@value #KEPT} are
 * kept, older ones deleted when a run starts. The first line names the command.
 */
final class CliLogging {

  private static final String PATTERN = "%d{yyyy-MM-dd HH:mm:ss.SSS} [%pid] %-5p %c{1} - %m%n";

  /** Log files kept: older runs' files are deleted when a run starts. */
  static final int KEPT = 30;

  private static final Pattern RUN_LOG = Pattern.compile("sediment-\\d{8}-\\d{6}-\\d+\\.log");

  private CliLogging() {}

  /** The directory of the CLI's log files. */
  static Path logDir() {
    String dir = System.getenv("SEDIMENT_LOG_DIR");
    return dir != null && !dir.isBlank()
        ? Paths.get(dir)
        : Paths.get(System.getProperty("user.home"), ".sediment", "log");
  }

  /** This run's log file in {@code dir}: named by its start time and process id. */
  static Path logFile(Path dir) {
    String time = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").format(LocalDateTime.now());
    return dir.resolve("sediment-" + time + "-" + ProcessHandle.current().pid() + ".log");
  }

  /**
   * Deletes all but the newest {@code keep} run log files of {@code dir} (by name: time, then pid);
   * best effort, files of other names are left alone.
   */
  static void deleteOldLogs(Path dir, int keep) {
    if (!Files.isDirectory(dir)) {
      return;
    }
    List<Path> logs = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir)) {
      files.filter(f -> RUN_LOG.matcher(f.getFileName().toString()).matches()).forEach(logs::add);
    } catch (IOException e) {
      return;
    }
    logs.sort(Comparator.comparing((Path f) -> f.getFileName().toString()).reversed());
    for (Path old : logs.subList(Math.min(keep, logs.size()), logs.size())) {
      try {
        Files.deleteIfExists(old);
      } catch (IOException e) {
        // best effort: another run may be deleting it too
      }
    }
  }

  /**
   * Sends warnings, and Sediment's own progress, to {@code file}; with {@code console} non-null
   * (under {@code --verbose}) also to it.
   */
  static void configure(Path file, OutputStream console) {
    ConfigurationBuilder<BuiltConfiguration> b =
        ConfigurationBuilderFactory.newConfigurationBuilder();
    b.setConfigurationName("sediment-cli");
    b.setStatusLevel(Level.ERROR);
    b.add(
        b.newAppender("file", "File")
            .addAttribute("fileName", file.toString())
            .addAttribute("append", true)
            .addAttribute("createOnDemand", true)
            .add(b.newLayout("PatternLayout").addAttribute("pattern", PATTERN)));
    b.add(b.newRootLogger(Level.WARN).add(b.newAppenderRef("file")));
    b.add(b.newLogger("io.sediment", Level.INFO));
    Configurator.reconfigure(b.build());
    // java.util.logging too (the AWS SDK 1.x of Flink's S3 plugin prints a deprecation notice on
    // every run), instead of its console handler on stderr
    Log4jBridgeHandler.install(true, null, true);
    LoggerContext context = LoggerContext.getContext(false);
    if (console != null) {
      Configuration config = context.getConfiguration();
      Appender appender =
          OutputStreamAppender.newBuilder()
              .setName("console")
              .setTarget(console)
              .setLayout(PatternLayout.newBuilder().withPattern(PATTERN).build())
              .build();
      appender.start();
      config.addAppender(appender);
      config.getRootLogger().addAppender(appender, null, null);
      context.updateLoggers();
    }
  }
}
