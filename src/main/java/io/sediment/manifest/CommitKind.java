package io.sediment.manifest;

/** What a snapshot did: appended files, compacted files, or replaced partitions. */
public enum CommitKind {
  APPEND,
  COMPACT,
  OVERWRITE
}
