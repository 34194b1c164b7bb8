package io.sediment.manifest;

import org.apache.flink.core.fs.Path;

/**
 * A metadata file (snapshot, commit user hint, expiry record) exists but does not hold what its
 * format requires. The message names the file and says what is wrong.
 */
public final class InvalidMetadataFileException extends IllegalStateException {

  private static final long serialVersionUID = 1L;

  private final String file;

  public InvalidMetadataFileException(Path file, String problem, Throwable cause) {
    super(file + " is not a valid " + kind(file) + ": " + problem, cause);
    this.file = file.toString();
  }

  /** The file, as a path string. */
  public String file() {
    return file;
  }

  private static String kind(Path file) {
    String name = file.getName();
    if (name.startsWith("snapshot-")) {
      return "snapshot file";
    }
    if (name.startsWith("user-")) {
      return "commit user hint";
    }
    return "metadata file";
  }
}
