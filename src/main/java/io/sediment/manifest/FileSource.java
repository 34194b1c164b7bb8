package io.sediment.manifest;

/** Who wrote a data file: a writer appending rows, or a compaction rewriting files. */
public enum FileSource {
  APPEND,
  COMPACT
}
