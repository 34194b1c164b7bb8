package io.sediment.flink.serde;

import io.sediment.commit.CommitMessage;
import java.io.IOException;
import java.util.List;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * The commit messages a SQL writer sends its committer for one window, layout 3: a list of {@link
 * CommitMessageCodec commit messages}. Framed by {@link VersionedBytes} in the records' {@code
 * byte[]}.
 */
public final class CommitMessageListCodec implements VersionedCodec<List<CommitMessage>> {

  public static final CommitMessageListCodec INSTANCE = new CommitMessageListCodec();

  private CommitMessageListCodec() {}

  @Override
  public void write(List<CommitMessage> messages, DataOutputView out) throws IOException {
    StateLayout.writeList(messages, CommitMessageCodec.INSTANCE, out);
  }

  @Override
  public List<CommitMessage> read(DataInputView in, int version) throws IOException {
    return StateLayout.readList(in, version, CommitMessageCodec.INSTANCE);
  }

  /** The payload of a writer's record. */
  public static byte[] toBytes(List<CommitMessage> messages) throws IOException {
    return VersionedBytes.write(messages, INSTANCE);
  }

  /** Reads a payload of any layout version (1 and 2: a Java-serialized list). */
  public static List<CommitMessage> fromBytes(byte[] bytes, ClassLoader classLoader)
      throws IOException {
    return VersionedBytes.read(bytes, INSTANCE, classLoader, "SQL writer commit messages");
  }
}
