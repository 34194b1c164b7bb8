package io.sediment.cli;

import picocli.CommandLine.Option;

/**
 * {@code --verbose}: print the logs on the terminal and the stack traces of errors. Read by {@link
 * SedimentCli} (logging set-up and error handler, as a matched option), not by the commands. Public
 * for commands outside this package (the benchmark's {@code bench}).
 */
public final class VerboseOption {

  @Option(
      names = "--verbose",
      description =
          "Print logs on the terminal (otherwise only in this run's file"
              + " ~/.sediment/log/sediment-<time>-<pid>.log, or in $SEDIMENT_LOG_DIR) and the"
              + " stack traces of errors.")
  public boolean verbose;
}
