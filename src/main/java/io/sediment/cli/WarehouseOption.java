package io.sediment.cli;

import picocli.CommandLine.Option;

/** {@code --warehouse}: the required warehouse of the commands that work on existing tables. */
final class WarehouseOption {

  @Option(names = "--warehouse", required = true, description = "Warehouse URI or local path.")
  String warehouse;
}
