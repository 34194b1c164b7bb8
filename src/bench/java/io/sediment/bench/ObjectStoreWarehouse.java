package io.sediment.bench;

import io.sediment.fs.FileIO;
import java.io.IOException;
import org.apache.flink.core.fs.Path;

/** A scratch warehouse on an object store for {@code sediment bench --dir s3://...}. */
public final class ObjectStoreWarehouse {

  private ObjectStoreWarehouse() {}

  /** Fails, naming the option, unless {@code warehouse} holds nothing. */
  public static void requireEmpty(String warehouse) throws IOException {
    Path root = new Path(warehouse);
    if (!FileIO.of(root).list(root).isEmpty()) {
      throw new IllegalArgumentException("--dir " + warehouse + " is not empty");
    }
  }

  /** Deletes everything under {@code warehouse}. */
  public static void delete(String warehouse) throws IOException {
    Path root = new Path(warehouse);
    FileIO.of(root).delete(root, true);
  }
}
