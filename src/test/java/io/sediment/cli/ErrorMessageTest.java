package io.sediment.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
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
  void aFileExceptionOfJavaNioSaysWhatIsWrongWithTheFile() {
    assertThat(ErrorMessage.of(foreign(new NoSuchFileException("/nope.sql"))))
        .isEqualTo("No such file: /nope.sql");
    assertThat(
            ErrorMessage.of(
                new UncheckedIOException(foreign(new AccessDeniedException("/root/x.sql")))))
        .isEqualTo("Permission denied: /root/x.sql");
    assertThat(ErrorMessage.of(foreign(new NoSuchFileException("/a", null, "gone in a race"))))
        .isEqualTo("/a: gone in a race");
  }

  @Test
  void aStatementThatFailedIsFollowedByItsReason() {
    Throwable flink =
        foreign(
            new IllegalStateException(
                "Failed to execute ALTER TABLE statement.\nThe column `p` is used as the"
                    + " partition keys.\n\tat somewhere"));
    assertThat(ErrorMessage.of(flink))
        .isEqualTo(
            "Failed to execute ALTER TABLE statement: The column `p` is used as the partition"
                + " keys.");
    assertThat(ErrorMessage.of(foreign(new IllegalStateException("One line.\nAnother"))))
        .isEqualTo("One line.");
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
