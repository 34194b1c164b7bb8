package io.sediment.compact;

/**
 * A compaction request that breaks one of its rules ({@link CompactSpec.Builder#build()}, {@link
 * CompactSpec#checkMode}), naming the argument at fault as Paimon's procedures name it ({@code
 * where}, {@code mode}, {@code compact_strategy}): each front end (the procedures, the CLI's {@code
 * --where}, ...) says it in its own words, while the rule is coded once.
 */
public final class CompactArgumentException extends IllegalArgumentException {

  private static final long serialVersionUID = 1L;

  private final String argument;

  CompactArgumentException(String argument, String message) {
    super(message);
    this.argument = argument;
  }

  /** The argument at fault, as the procedures name it. */
  public String argument() {
    return argument;
  }
}
