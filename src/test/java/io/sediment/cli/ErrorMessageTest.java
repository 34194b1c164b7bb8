package io.sediment.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

/** The error line of chains whose root cause has no message of its own. */
class ErrorMessageTest {

  /** {@code t} as if thrown by a library: its stack trace starts outside Sediment. */
  private static <T extends Throwable> T foreign(T t) {
    t.setStackTrace(
        new StackTraceElement[] {
          new StackTraceElement("java.io.DataInputStream", "readFully", null, 1)
        });
    return t;
  }

  @Test
  void anEofExceptionSaysTheFileEndsEarlyAfterTheMessageNamingIt() {
    IOException named =
        new IOException("Cannot read manifest file m-1", foreign(new EOFException()));
    Throwable wrapped = new ExecutionException(new UncheckedIOException(named));

    assertThat(ErrorMessage.of(wrapped))
        .isEqualTo("Cannot read manifest file m-1: the file ends early (truncated?)");
  }

  @Test
  void aBareEofExceptionIsNotPrintedAsItsClassName() {
    Throwable bare =
        new RuntimeException(
            new UncheckedIOException(new IOException(foreign(new EOFException()))));

    assertThat(ErrorMessage.of(bare)).isEqualTo("the file ends early (truncated?)");
  }

  @Test
  void noNullPointerExceptionTextReachesTheUser() {
    Throwable npe =
        new IllegalStateException(
            "Cannot plan db.t",
            foreign(
                new NullPointerException(
                    "Cannot invoke \"String.length()\" because \"s\" is null")));

    assertThat(ErrorMessage.of(npe))
        .isEqualTo("Cannot plan db.t: a required value is missing (a bug: run with --verbose)");
  }
}
