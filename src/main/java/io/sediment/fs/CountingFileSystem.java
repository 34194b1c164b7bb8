package io.sediment.fs;

import io.sediment.fs.ObjectStoreRequests.Kind;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.URI;
import java.util.Map;
import org.apache.flink.core.fs.BlockLocation;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.flink.core.fs.RecoverableWriter;

/**
 * An object store's Flink {@link FileSystem} that counts the requests each call costs on S3 into
 * {@link ObjectStoreRequests}: a status or {@code exists} is a HEAD (plus a LIST when the object is
 * missing: S3A then looks for a directory), a listing a LIST, an open a GET (a seek backwards in a
 * large file may cost another, ranged GET, not counted), a create a PUT (multipart for large files,
 * counted as one), a rename a COPY and a DELETE, a delete a DELETE, a mkdirs a HEAD.
 */
final class CountingFileSystem extends FileSystem {

  private final FileSystem fs;

  CountingFileSystem(FileSystem fs) {
    this.fs = fs;
  }

  @Override
  public Path getWorkingDirectory() {
    return fs.getWorkingDirectory();
  }

  @Override
  public Path getHomeDirectory() {
    return fs.getHomeDirectory();
  }

  @Override
  public URI getUri() {
    return fs.getUri();
  }

  @Override
  public FileStatus getFileStatus(Path f) throws IOException {
    ObjectStoreRequests.count(Kind.HEAD);
    try {
      return fs.getFileStatus(f);
    } catch (FileNotFoundException e) {
      ObjectStoreRequests.count(Kind.LIST);
      throw e;
    }
  }

  @Override
  public boolean exists(Path f) throws IOException {
    ObjectStoreRequests.count(Kind.HEAD);
    boolean exists = fs.exists(f);
    if (!exists) {
      ObjectStoreRequests.count(Kind.LIST);
    }
    return exists;
  }

  @Override
  public BlockLocation[] getFileBlockLocations(FileStatus file, long start, long len)
      throws IOException {
    return fs.getFileBlockLocations(file, start, len);
  }

  @Override
  public FSDataInputStream open(Path f, int bufferSize) throws IOException {
    ObjectStoreRequests.count(Kind.GET);
    return fs.open(f, bufferSize);
  }

  @Override
  public FSDataInputStream open(Path f) throws IOException {
    ObjectStoreRequests.count(Kind.GET);
    return fs.open(f);
  }

  @Override
  public FileStatus[] listStatus(Path f) throws IOException {
    ObjectStoreRequests.count(Kind.LIST);
    return fs.listStatus(f);
  }

  @Override
  public boolean delete(Path f, boolean recursive) throws IOException {
    ObjectStoreRequests.count(Kind.DELETE);
    return fs.delete(f, recursive);
  }

  @Override
  public boolean mkdirs(Path f) throws IOException {
    ObjectStoreRequests.count(Kind.HEAD);
    return fs.mkdirs(f);
  }

  @Override
  public FSDataOutputStream create(Path f, WriteMode overwriteMode) throws IOException {
    ObjectStoreRequests.count(Kind.PUT);
    return fs.create(f, overwriteMode);
  }

  @Override
  public boolean rename(Path src, Path dst) throws IOException {
    ObjectStoreRequests.count(Kind.COPY);
    ObjectStoreRequests.count(Kind.DELETE);
    return fs.rename(src, dst);
  }

  @Override
  public RecoverableWriter createRecoverableWriter() throws IOException {
    return fs.createRecoverableWriter();
  }

  @Override
  public RecoverableWriter createRecoverableWriter(Map<String, String> conf) throws IOException {
    return fs.createRecoverableWriter(conf);
  }

  @Override
  public boolean isDistributedFS() {
    return fs.isDistributedFS();
  }
}
