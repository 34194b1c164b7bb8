package io.sediment.cli;

/** Counts with their noun in the right number: "1 file", "2 files". */
final class Plurals {

  private Plurals() {}

  /** {@code count} and {@code noun}, with an "s" unless the count is one. */
  static String of(long count, String noun) {
    return count + " " + (count == 1 ? noun : noun + "s");
  }
}
