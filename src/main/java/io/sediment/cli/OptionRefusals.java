package io.sediment.cli;

import java.util.function.Supplier;

/** Refusals that name the option at fault: {@code --tag: Invalid tag name ...}. */
final class OptionRefusals {

  private OptionRefusals() {}

  /** Runs {@code check}; its refusal ({@link IllegalArgumentException}) names {@code option}. */
  static void check(String option, Runnable check) {
    named(
        option,
        () -> {
          check.run();
          return null;
        });
  }

  /** Runs {@code action}; its refusal names {@code option}. */
  static <T> T named(String option, Supplier<T> action) {
    try {
      return action.get();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(option + ": " + e.getMessage(), e);
    }
  }
}
