package io.sediment.format;

import org.apache.flink.core.fs.Path;

/**
 * What a Parquet file of a table is, by its name, for error messages: manifests and manifest lists
 * are Parquet files read by the same reader as data files, and an error must not call a broken
 * manifest list a "data file".
 */
public final class FileRoles {

  private FileRoles() {}

  /** "manifest list", "index manifest", "manifest file" or "data file". */
  public static String of(Path file) {
    String name = file.getName();
    if (name.startsWith("manifest-list-")) {
      return "manifest list";
    }
    if (name.startsWith("index-manifest-")) {
      return "index manifest";
    }
    if (name.startsWith("manifest-")) {
      return "manifest file";
    }
    return "data file";
  }
}
