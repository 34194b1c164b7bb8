package io.sediment.testutil;

import java.io.IOException;
import java.net.URI;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.apache.flink.core.fs.BlockLocation;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.FileSystemFactory;
import org.apache.flink.core.fs.Path;
import org.apache.flink.core.fs.local.LocalFileSystem;

/**
 * The local file system under the scheme {@code faulty:}, with switches that make opening or
 * deleting chosen paths fail: a real file system for fault-injection tests.
 */
public final class FaultyFileSystem extends FileSystem {

  public static final String SCHEME = "faulty";

  /** Called with the path before every open; may throw to fail it, or block to pause a reader. */
  public interface OpenHook {
    void beforeOpen(String path) throws IOException;
  }

  private static volatile OpenHook openHook = p -> {};
  private static volatile Predicate<String> failDelete = p -> false;
  private static volatile Predicate<String> failAfterRename = p -> false;
  private static volatile Predicate<String> failCreate = p -> false;
  public static final AtomicInteger DELETE_FAILURES = new AtomicInteger();

  /** Deletes attempted since the last {@link #reset}. */
  public static final AtomicInteger DELETES = new AtomicInteger();

  private static volatile int deletesBeforeCrash = -1;

  private final LocalFileSystem local = new LocalFileSystem();

  /** Opening a path whose string matches fails with an IOException. */
  public static void failOpen(Predicate<String> matcher) {
    openHook =
        p -> {
          if (matcher.test(p)) {
            throw new IOException("Injected failure opening " + p);
          }
        };
  }

  public static void onOpen(OpenHook hook) {
    openHook = hook;
  }

  /** Deleting a path whose string matches fails with an IOException. */
  public static void failDelete(Predicate<String> matcher) {
    failDelete = matcher;
  }

  /**
   * A crash point: the first {@code n} deletes happen, every later one fails (the process "died"
   * there; what it would have deleted next stays).
   */
  public static void failDeletesAfter(int n) {
    DELETES.set(0);
    deletesBeforeCrash = n;
  }

  /** Renaming to a matching target happens, then reports an IOException (a lost reply). */
  public static void failAfterRename(Predicate<String> targetMatcher) {
    failAfterRename = targetMatcher;
  }

  /** Creating a path whose string matches fails with an IOException (nothing is created). */
  public static void failCreate(Predicate<String> matcher) {
    failCreate = matcher;
  }

  public static void reset() {
    failAfterRename = p -> false;
    failCreate = p -> false;
    openHook = p -> {};
    failDelete = p -> false;
    DELETE_FAILURES.set(0);
    DELETES.set(0);
    deletesBeforeCrash = -1;
  }

  /** A {@code faulty:} URI string for a local directory. */
  public static String uri(java.nio.file.Path dir) {
    return SCHEME + "://" + dir.toAbsolutePath();
  }

  private static Path toLocal(Path p) {
    return new Path("file", null, p.toUri().getPath());
  }

  private static Path toFaulty(Path p) {
    return new Path(SCHEME, null, p.toUri().getPath());
  }

  @Override
  public Path getWorkingDirectory() {
    return toFaulty(local.getWorkingDirectory());
  }

  @Override
  public Path getHomeDirectory() {
    return toFaulty(local.getHomeDirectory());
  }

  @Override
  public URI getUri() {
    return URI.create(SCHEME + ":///");
  }

  @Override
  public FileStatus getFileStatus(Path f) throws IOException {
    return wrap(local.getFileStatus(toLocal(f)));
  }

  @Override
  public BlockLocation[] getFileBlockLocations(FileStatus file, long start, long len)
      throws IOException {
    return new BlockLocation[0];
  }

  @Override
  public FSDataInputStream open(Path f, int bufferSize) throws IOException {
    return open(f);
  }

  @Override
  public FSDataInputStream open(Path f) throws IOException {
    openHook.beforeOpen(f.toString());
    return local.open(toLocal(f));
  }

  @Override
  public FileStatus[] listStatus(Path f) throws IOException {
    FileStatus[] st = local.listStatus(toLocal(f));
    if (st == null) {
      return null;
    }
    FileStatus[] out = new FileStatus[st.length];
    for (int i = 0; i < st.length; i++) {
      out[i] = wrap(st[i]);
    }
    return out;
  }

  @Override
  public boolean delete(Path f, boolean recursive) throws IOException {
    int budget = deletesBeforeCrash;
    if (DELETES.incrementAndGet() > budget && budget >= 0) {
      DELETE_FAILURES.incrementAndGet();
      throw new IOException("Injected crash before deleting " + f);
    }
    if (failDelete.test(f.toString())) {
      DELETE_FAILURES.incrementAndGet();
      throw new IOException("Injected failure deleting " + f);
    }
    return local.delete(toLocal(f), recursive);
  }

  @Override
  public boolean mkdirs(Path f) throws IOException {
    return local.mkdirs(toLocal(f));
  }

  @Override
  public FSDataOutputStream create(Path f, WriteMode overwriteMode) throws IOException {
    if (failCreate.test(f.toString())) {
      throw new IOException("Injected failure creating " + f);
    }
    return local.create(toLocal(f), overwriteMode);
  }

  @Override
  public boolean rename(Path src, Path dst) throws IOException {
    boolean renamed = local.rename(toLocal(src), toLocal(dst));
    if (renamed && failAfterRename.test(dst.toString())) {
      throw new IOException("Injected failure after renaming to " + dst);
    }
    return renamed;
  }

  @Override
  public boolean isDistributedFS() {
    return false;
  }

  private static FileStatus wrap(FileStatus s) {
    return new FileStatus() {
      @Override
      public long getLen() {
        return s.getLen();
      }

      @Override
      public long getBlockSize() {
        return s.getBlockSize();
      }

      @Override
      public short getReplication() {
        return s.getReplication();
      }

      @Override
      public long getModificationTime() {
        return s.getModificationTime();
      }

      @Override
      public long getAccessTime() {
        return s.getAccessTime();
      }

      @Override
      public boolean isDir() {
        return s.isDir();
      }

      @Override
      public Path getPath() {
        return toFaulty(s.getPath());
      }
    };
  }

  /** Registered through META-INF/services for the {@code faulty} scheme. */
  public static final class Factory implements FileSystemFactory {
    @Override
    public String getScheme() {
      return SCHEME;
    }

    @Override
    public FileSystem create(URI fsUri) {
      return new FaultyFileSystem();
    }
  }
}
