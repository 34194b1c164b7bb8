package io.sediment.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code sediment} command (minimal: only {@code sql}; the full CLI adds the other commands). */
@Command(
    name = "sediment",
    mixinStandardHelpOptions = true,
    subcommands = {SqlCommand.class},
    description = "Sediment lake table store.")
public final class SedimentCli implements Runnable {

  public static void main(String[] args) {
    System.exit(new CommandLine(new SedimentCli()).execute(args));
  }

  @Override
  public void run() {
    new CommandLine(this).usage(System.out);
  }
}
