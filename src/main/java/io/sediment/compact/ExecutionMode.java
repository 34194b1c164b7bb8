package io.sediment.compact;

import java.util.Locale;

/**
 * How a compaction runs: {@link #BATCH} plans once, rewrites, commits and ends; {@link #STREAMING}
 * is the dedicated job, which plans again at every discovery and commits at every checkpoint. The
 * CLI's {@code --mode} and the procedures' {@code mode} are parsed here, so they accept and refuse
 * the same words.
 */
public enum ExecutionMode {
  BATCH,
  STREAMING;

  /** The mode named {@code text} (any case, surrounding spaces ignored); null is {@link #BATCH}. */
  public static ExecutionMode parse(String text) {
    if (text == null) {
      return BATCH;
    }
    return switch (text.strip().toLowerCase(Locale.ROOT)) {
      case "batch" -> BATCH;
      case "streaming" -> STREAMING;
      default ->
          throw new IllegalArgumentException(
              "Unknown mode '" + text + "'; allowed: 'batch', 'streaming'");
    };
  }

  /** Whether the run ends once its planned work is committed. */
  public boolean isBounded() {
    return this == BATCH;
  }

  @Override
  public String toString() {
    return name().toLowerCase(Locale.ROOT);
  }
}
