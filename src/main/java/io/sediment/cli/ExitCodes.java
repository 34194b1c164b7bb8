package io.sediment.cli;

/** The exit codes of the {@code sediment} commands. */
public final class ExitCodes {

  private ExitCodes() {}

  /** The command did what it was asked. */
  public static final int OK = 0;

  /** Any failure other than bad arguments: a missing table, a failed job, a failed verification. */
  public static final int FAILED = 1;

  /** Bad arguments: an unknown option, a bad value, an invalid filter, option or commit user. */
  public static final int USAGE = 2;
}
