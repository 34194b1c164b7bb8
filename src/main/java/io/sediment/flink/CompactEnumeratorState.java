package io.sediment.flink;

import java.io.Serializable;
import java.util.List;

/**
 * Checkpointed state of the task enumerator: tasks planned but not handed out ({@code pending}),
 * tasks handed out whose end the enumerator has not yet learnt ({@code held}: their input files are
 * kept out of new plans), the next task id, and the job's commit user (so a job restored from a
 * savepoint into a new submission keeps using the restored user for markers and releases).
 */
public record CompactEnumeratorState(
    List<CompactTaskSplit> pending, List<CompactTaskSplit> held, long nextId, String commitUser)
    implements Serializable {}
