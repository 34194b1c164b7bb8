package io.sediment.cli;

import java.io.OutputStream;
import java.nio.file.Path;
import java.nio.file.Paths;
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

/**
 * Where the CLI's logs go: to a log file, so that a successful command prints its result and
 * nothing else (Flink and Hadoop warn about missing Hadoop configuration, native libraries and
 * delegation tokens on every run), and with {@code --verbose} to the terminal too. The file is
 * {@code sediment.log} in {@code $SEDIMENT_LOG_DIR}, else in {@code ~/.sediment/log}; every line
 * names the process that wrote it, and each run starts with a line naming its command.
 */
final class CliLogging {

  /** With the process id: runs share the file, and concurrent ones interleave their lines. */
  private static final String PATTERN = "%d{yyyy-MM-dd HH:mm:ss.SSS} [%pid] %-5p %c{1} - %m%n";

  private CliLogging() {}

  /** The log file of this user's CLI runs. */
  static Path logFile() {
    String dir = System.getenv("SEDIMENT_LOG_DIR");
    Path base =
        dir != null && !dir.isBlank()
            ? Paths.get(dir)
            : Paths.get(System.getProperty("user.home"), ".sediment", "log");
    return base.resolve("sediment.log");
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
