package io.sediment.format;

import java.io.IOException;
import org.apache.flink.core.fs.Path;

/**
 * A page to be copied byte for byte has no CRC in its header (a file written before Sediment wrote
 * page checksums, or by another writer): its bytes cannot be verified, so they are not copied. The
 * caller decodes and re-encodes the file's rows instead, which checks what decoding can.
 */
public final class PageWithoutChecksumException extends IOException {

  private final Path file;

  PageWithoutChecksumException(Path file, String where) {
    super(
        "Data file "
            + file
            + ": the page "
            + where
            + " has no CRC, so its bytes cannot be verified and are not copied");
    this.file = file;
  }

  /** The data file holding the page. */
  public Path file() {
    return file;
  }
}
