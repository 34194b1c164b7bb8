package io.sediment.cli;

import picocli.CommandLine.Option;

/**
 * {@code --verbose}: print stack traces of errors. Read by the error handler of {@link SedimentCli}
 * (as a matched option), not by the commands.
 */
final class VerboseOption {

  @Option(names = "--verbose", description = "Print stack traces of errors.")
  boolean verbose;
}
