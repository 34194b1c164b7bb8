package io.sediment.io;

import java.io.IOException;
import java.io.Serializable;
import org.apache.flink.core.fs.Path;

/**
 * Told about each output file before it is created, so a caller can record it first (the Flink
 * compaction topology writes a marker file per output, which makes cleanup after a failover exact).
 * Every writer of compaction output, of every table kind, must honour it.
 */
@FunctionalInterface
public interface OutputObserver extends Serializable {

  OutputObserver NONE = path -> {};

  /** Called with the full path of an output file before the file is created; may throw. */
  void beforeCreate(Path path) throws IOException;
}
