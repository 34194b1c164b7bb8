package io.sediment.faultmatrix;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;

/**
 * Puts the display name of a parameterized case (table kind, fault, ...) in front of its failure
 * message, so that reports which list cases by index still say which case failed.
 */
final class NamedFailures implements TestExecutionExceptionHandler {

  @Override
  public void handleTestExecutionException(ExtensionContext context, Throwable e) throws Throwable {
    if (String.valueOf(e.getMessage()).startsWith("[" + context.getDisplayName() + "]")) {
      throw e; // already named
    }
    throw new AssertionError("[" + context.getDisplayName() + "] " + e, e);
  }
}
