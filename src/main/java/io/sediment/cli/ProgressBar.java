package io.sediment.cli;

/** A one-line progress bar on the terminal (stderr). */
final class ProgressBar {
  private final int total;

  ProgressBar(int total) {
    this.total = total;
  }

  void update(int done) {
    int width = 30;
    int filled = total == 0 ? width : Math.min(width, done * width / total);
    System.err.print(
        "\r["
            + "#".repeat(filled)
            + " ".repeat(width - filled)
            + "] "
            + done
            + "/"
            + total
            + " tasks");
    System.err.flush();
  }

  void finish() {
    update(total);
    System.err.println();
  }
}
