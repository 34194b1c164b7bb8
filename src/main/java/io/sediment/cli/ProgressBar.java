package io.sediment.cli;

import java.io.PrintWriter;

/**
 * A one-line progress bar on the command's error stream (the terminal). Logs go to the log file
 * unless {@code --verbose}, so no log line breaks the bar.
 */
final class ProgressBar {
  private final int total;
  private final PrintWriter err;

  ProgressBar(int total, PrintWriter err) {
    this.total = total;
    this.err = err;
  }

  void update(int done) {
    int width = 30;
    int filled = total == 0 ? width : Math.min(width, done * width / total);
    err.print(
        "\r["
            + "#".repeat(filled)
            + " ".repeat(width - filled)
            + "] "
            + done
            + "/"
            + total
            + " tasks");
    err.flush();
  }

  void finish() {
    update(total);
    err.println();
    err.flush();
  }
}
