package io.sediment.flink;

import java.io.Serializable;
import java.util.List;

/**
 * Checkpointed state of the task enumerator: tasks planned but not handed out ({@code pending}),
 * tasks handed out whose end the enumerator has not yet learnt ({@code held}: their input files are
 * kept out of new plans), and the next task id.
 */
public record CompactEnumeratorState(
    List<CompactTaskSplit> pending, List<CompactTaskSplit> held, long nextId)
    implements Serializable {}
