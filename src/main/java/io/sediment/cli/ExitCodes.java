package io.sediment.cli;

/** The exit codes of the {@code sediment} commands. */
final class ExitCodes {

  private ExitCodes() {}

  /** The command did what it was asked. */
  static final int OK = 0;

  /** Any failure other than bad arguments: a missing table, a failed job, a failed verification. */
  static final int FAILED = 1;

  /** Bad arguments: an unknown option, a bad value, an invalid filter, option or commit user. */
  static final int USAGE = 2;
}
