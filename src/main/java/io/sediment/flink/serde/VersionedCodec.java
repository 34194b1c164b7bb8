package io.sediment.flink.serde;

import java.io.IOException;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * The explicit field layout of one type in Flink state, splits and records. A codec writes the
 * fields of the current layout ({@link StateLayout#CURRENT}) and reads the fields of any layout
 * version it knows. It writes no version itself: the version is written once per payload (a split,
 * an enumerator checkpoint, a record, a committer's windows) by whoever frames the payload, and
 * handed down to the codecs of nested types, so one payload never mixes layouts.
 */
public interface VersionedCodec<T> {

  /** Writes {@code value}'s fields in the current layout. */
  void write(T value, DataOutputView out) throws IOException;

  /** Reads a value whose fields were written in layout {@code version}. */
  T read(DataInputView in, int version) throws IOException;
}
