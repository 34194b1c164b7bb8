package io.sediment.flink.sql;

import java.util.List;

/**
 * What a streaming read's enumerator checkpoints: the first snapshot whose changes it has not
 * planned yet, the counter that names splits, and the splits planned but not yet given to a reader
 * (in order).
 */
record StreamEnumeratorState(long nextSnapshotId, long splitCounter, List<StreamSplit> pending) {}
