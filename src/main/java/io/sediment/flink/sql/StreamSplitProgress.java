package io.sediment.flink.sql;

import java.util.List;
import java.util.Map;
import org.apache.flink.api.connector.source.SourceEvent;

/**
 * From a streaming read's reader to its enumerator: the splits it holds now (given to it, or
 * restored from its state), by split id with their snapshot, and the splits it finished. The
 * enumerator records a consumer's next snapshot below every split still held.
 */
record StreamSplitProgress(Map<String, Long> held, List<String> finished) implements SourceEvent {}
