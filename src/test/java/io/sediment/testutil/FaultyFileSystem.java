package io.sediment.testutil;

import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
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
 *
 * <p>Besides the path switches, an <em>operation plan</em> ({@link #recordOperations}, {@link
 * #injectAt}) numbers every state-changing operation under one directory (create, rename, delete,
 * mkdirs; from 1) and makes operation k fail: with an I/O error, a write that fails after some
 * bytes, a full disk, or a {@link Crash}. A crash stands for the process dying: from then on every
 * call under that directory throws {@link Crash} until {@link #reset}, so nothing the code under
 * test does in {@code finally} or {@code catch} blocks reaches the disk either.
 */
public final class FaultyFileSystem extends FileSystem {

  public static final String SCHEME = "faulty";

  /**
   * Called with a path before an operation on it (an open, a create, a rename's target): may throw
   * to fail the operation, block to pause it, or act meanwhile.
   */
  public interface PathHook {
    void before(String path) throws IOException;
  }

  private static volatile PathHook openHook = p -> {};
  private static volatile PathHook renameHook = p -> {};
  private static volatile PathHook createHook = p -> {};
  private static volatile Predicate<String> failDelete = p -> false;
  private static volatile Predicate<String> failAfterRename = p -> false;
  public static final AtomicInteger DELETE_FAILURES = new AtomicInteger();
  private static volatile OperationPlan plan;
  private static volatile Predicate<String> crashAfterRename = p -> false;
  private static volatile AtomicBoolean crashedAfterRename;

  /** Deletes attempted since the last {@link #reset}. */
  public static final AtomicInteger DELETES = new AtomicInteger();

  /** File status requests (existence checks among them) since the last {@link #reset}. */
  public static final AtomicInteger STATUS_CHECKS = new AtomicInteger();

  /** Files opened since the last {@link #reset}. */
  public static final AtomicInteger OPENS = new AtomicInteger();

  /**
   * The directories listed (local paths), in order, since {@link #recordListings} (until the next
   * {@link #reset}).
   */
  public static final List<String> LISTED = Collections.synchronizedList(new ArrayList<>());

  private static volatile boolean recordListings;

  /** Starts recording the directories listed into {@link #LISTED}, from empty. */
  public static void recordListings() {
    LISTED.clear();
    recordListings = true;
  }

  /** Listings still to fail as if a listed file vanished before its status was read. */
  private static final AtomicInteger VANISHING_LISTINGS = new AtomicInteger();

  private static volatile int deletesBeforeCrash = -1;

  private final LocalFileSystem local = new LocalFileSystem();

  /** Opening a path whose string matches fails with an IOException. */
  public static void failOpen(Predicate<String> matcher) {
    openHook = failing(matcher, "opening");
  }

  /** A hook that fails the operation on a matching path with an IOException. */
  private static PathHook failing(Predicate<String> matcher, String operation) {
    return p -> {
      if (matcher.test(p)) {
        throw new IOException("Injected failure " + operation + " " + p);
      }
    };
  }

  public static void onOpen(PathHook hook) {
    openHook = hook;
  }

  public static void onRename(PathHook hook) {
    renameHook = hook;
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
    createHook = failing(matcher, "creating");
  }

  public static void onCreate(PathHook hook) {
    createHook = hook;
  }

  /**
   * The next {@code n} listings fail with a FileNotFoundException, as the local file system's does
   * when a file it listed is deleted before it reads the file's status.
   */
  public static void vanishDuringListing(int n) {
    VANISHING_LISTINGS.set(n);
  }

  public static void reset() {
    VANISHING_LISTINGS.set(0);
    failAfterRename = p -> false;
    createHook = p -> {};
    openHook = p -> {};
    renameHook = p -> {};
    failDelete = p -> false;
    DELETE_FAILURES.set(0);
    DELETES.set(0);
    STATUS_CHECKS.set(0);
    OPENS.set(0);
    LISTED.clear();
    recordListings = false;
    deletesBeforeCrash = -1;
    plan = null;
    crashAfterRename = p -> false;
    crashedAfterRename = null;
  }

  /**
   * The first rename to a matching target happens, then the caller dies with a {@link Crash} (an
   * Error that cleanup and retry code lets through), once; {@code fired} is set then. Unlike a
   * planned crash, later calls work: it is the caller that died (a job that fails over), not the
   * machine.
   */
  public static void crashAfterRenameOnce(Predicate<String> targetMatcher, AtomicBoolean fired) {
    crashedAfterRename = fired;
    crashAfterRename = targetMatcher;
  }

  /**
   * The process died here. An {@link Error}, so that the code under test, which catches {@code
   * Exception}/{@code RuntimeException}/{@code IOException} to clean up or retry, lets it through.
   */
  public static final class Crash extends Error {
    private static final long serialVersionUID = 1L;

    public Crash(String message) {
      super(message);
    }
  }

  /** The state-changing operations the plan numbers. */
  public enum OpKind {
    CREATE,
    RENAME,
    DELETE,
    MKDIRS
  }

  /** One numbered operation: its kind, its path (a rename's target), the bytes written to it. */
  public static final class Operation {
    public final int index;
    public final OpKind kind;
    public final String path;
    final AtomicLong bytes = new AtomicLong();

    Operation(int index, OpKind kind, String path) {
      this.index = index;
      this.kind = kind;
      this.path = path;
    }

    /** Bytes written to a created file (so far). */
    public long bytesWritten() {
      return bytes.get();
    }

    @Override
    public String toString() {
      return "#" + index + " " + kind + " " + path;
    }
  }

  /** What happens at the chosen operation. */
  public enum FaultKind {
    /** The process dies: {@link Crash}, and every later call under the directory fails. */
    CRASH,
    /** The operation fails with an IOException and changes nothing (a create creates nothing). */
    IO_ERROR,
    /** The create succeeds, then writing fails with an IOException after {@code afterBytes}. */
    WRITE_FAILS_MIDWAY,
    /** As {@link #WRITE_FAILS_MIDWAY}, with the message of a full disk. */
    DISK_FULL,
    /**
     * The operation happens, then the thread that asked for it is interrupted, as a job's
     * cancellation interrupts a writing thread: the local file system closes the file's channel on
     * the next call that waits, and every later call on the stream fails.
     */
    INTERRUPT
  }

  /** A fault at one operation; {@code afterBytes} for the write faults. */
  public record Fault(FaultKind kind, long afterBytes) {
    public static Fault crash() {
      return new Fault(FaultKind.CRASH, 0);
    }

    public static Fault ioError() {
      return new Fault(FaultKind.IO_ERROR, 0);
    }

    public static Fault writeFailsAfter(long bytes) {
      return new Fault(FaultKind.WRITE_FAILS_MIDWAY, bytes);
    }

    public static Fault diskFullAfter(long bytes) {
      return new Fault(FaultKind.DISK_FULL, bytes);
    }

    public static Fault interrupt() {
      return new Fault(FaultKind.INTERRUPT, 0);
    }
  }

  /** The message of {@link FaultKind#DISK_FULL}, as the JDK reports ENOSPC. */
  public static final String DISK_FULL_MESSAGE = "No space left on device";

  /**
   * Numbers every state-changing operation under {@code root} (a local directory) from now on, and
   * returns the live list of them, for a first run of a step that counts its operations.
   */
  public static List<Operation> recordOperations(java.nio.file.Path root) {
    OperationPlan p = new OperationPlan(root.toAbsolutePath().toString(), -1, null);
    plan = p;
    return p.log;
  }

  /**
   * Numbers every state-changing operation under {@code root} from now on and applies {@code fault}
   * to operation number {@code k} (from 1). Returns the live list of operations seen.
   */
  public static List<Operation> injectAt(java.nio.file.Path root, int k, Fault fault) {
    OperationPlan p = new OperationPlan(root.toAbsolutePath().toString(), k, fault);
    plan = p;
    return p.log;
  }

  /** Whether the planned fault fired (for a crash: the process is dead). */
  public static boolean faultFired() {
    OperationPlan p = plan;
    return p != null && p.fired;
  }

  /** The numbered operations, their fault, and whether the process "died". */
  private static final class OperationPlan {
    final String root;
    final int target;
    final Fault fault;
    final List<Operation> log = Collections.synchronizedList(new ArrayList<>());
    volatile boolean fired;
    volatile boolean dead;

    OperationPlan(String root, int target, Fault fault) {
      this.root = root.endsWith("/") ? root : root + "/";
      this.target = target;
      this.fault = fault;
    }

    boolean covers(Path p) {
      String s = p.toUri().getPath();
      return s != null && (s + "/").startsWith(root);
    }

    void checkAlive(Path p) {
      if (dead && covers(p)) {
        throw new Crash("Injected crash: the process is dead (" + p + ")");
      }
    }

    /** Numbers the operation; returns the fault to apply to it, or null. */
    synchronized Operation next(OpKind kind, Path p) {
      Operation op = new Operation(log.size() + 1, kind, p.toUri().getPath());
      log.add(op);
      return op;
    }

    Fault faultFor(Operation op) {
      if (op.index != target || fault == null) {
        return null;
      }
      fired = true;
      if (fault.kind() == FaultKind.CRASH) {
        dead = true;
        throw new Crash("Injected crash at operation " + op);
      }
      return fault;
    }
  }

  /** Numbers a state-changing operation; throws its fault, or returns a write fault (or null). */
  private static Operation operation(OpKind kind, Path p) throws IOException {
    OperationPlan pl = plan;
    if (pl == null || !pl.covers(p)) {
      return null;
    }
    pl.checkAlive(p);
    Operation op = pl.next(kind, p);
    Fault f = pl.faultFor(op);
    if (f == null) {
      return op;
    }
    if (f.kind() == FaultKind.IO_ERROR) {
      throw new IOException("Injected I/O error at operation " + op);
    }
    if (f.kind() == FaultKind.INTERRUPT) {
      Thread.currentThread().interrupt();
      return op;
    }
    if (kind != OpKind.CREATE) {
      throw new IOException(
          (f.kind() == FaultKind.DISK_FULL ? DISK_FULL_MESSAGE : "Injected write failure")
              + " at operation "
              + op);
    }
    return op;
  }

  private static void checkAlive(Path p) {
    OperationPlan pl = plan;
    if (pl != null) {
      pl.checkAlive(p);
    }
  }

  /** The write fault planned for {@code op}, or null. */
  private static Fault writeFault(Operation op) {
    OperationPlan pl = plan;
    if (pl == null || op == null || op.index != pl.target || pl.fault == null) {
      return null;
    }
    FaultKind k = pl.fault.kind();
    return k == FaultKind.WRITE_FAILS_MIDWAY || k == FaultKind.DISK_FULL ? pl.fault : null;
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
    checkAlive(f);
    STATUS_CHECKS.incrementAndGet();
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
    checkAlive(f);
    OPENS.incrementAndGet();
    openHook.before(f.toString());
    return local.open(toLocal(f));
  }

  @Override
  public FileStatus[] listStatus(Path f) throws IOException {
    checkAlive(f);
    if (VANISHING_LISTINGS.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
      throw new java.io.FileNotFoundException("Injected: a file listed under " + f + " vanished");
    }
    if (recordListings) {
      LISTED.add(toLocal(f).getPath());
    }
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
    operation(OpKind.DELETE, f);
    return local.delete(toLocal(f), recursive);
  }

  @Override
  public boolean mkdirs(Path f) throws IOException {
    operation(OpKind.MKDIRS, f);
    return local.mkdirs(toLocal(f));
  }

  @Override
  public FSDataOutputStream create(Path f, WriteMode overwriteMode) throws IOException {
    createHook.before(f.toString());
    Operation op = operation(OpKind.CREATE, f);
    FSDataOutputStream out = local.create(toLocal(f), overwriteMode);
    return op == null ? out : new PlannedOutputStream(out, op, writeFault(op));
  }

  @Override
  public boolean rename(Path src, Path dst) throws IOException {
    renameHook.before(dst.toString());
    checkAlive(src);
    operation(OpKind.RENAME, dst);
    boolean renamed = local.rename(toLocal(src), toLocal(dst));
    AtomicBoolean fired = crashedAfterRename;
    if (renamed
        && fired != null
        && crashAfterRename.test(dst.toString())
        && fired.compareAndSet(false, true)) {
      throw new Crash("Injected crash after renaming to " + dst);
    }
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

  /**
   * A created file's stream under the operation plan: counts the bytes written, fails after the
   * planned number of bytes, and dies with the process.
   */
  private static final class PlannedOutputStream extends FSDataOutputStream {
    private final FSDataOutputStream out;
    private final Operation op;
    private final Fault fault;
    private final Path path;

    PlannedOutputStream(FSDataOutputStream out, Operation op, Fault fault) {
      this.out = out;
      this.op = op;
      this.fault = fault;
      this.path = new Path(SCHEME, null, op.path);
    }

    private void beforeWrite(int len) throws IOException {
      checkAlive(path);
      if (fault != null && op.bytes.get() + len > fault.afterBytes()) {
        throw new IOException(
            (fault.kind() == FaultKind.DISK_FULL ? DISK_FULL_MESSAGE : "Injected write failure")
                + " writing "
                + op.path
                + " after "
                + op.bytes.get()
                + " bytes");
      }
    }

    @Override
    public void write(int b) throws IOException {
      beforeWrite(1);
      out.write(b);
      op.bytes.incrementAndGet();
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      if (fault != null && op.bytes.get() + len > fault.afterBytes()) {
        // Write what fits first: the failure comes midway, as on a real device.
        int fits = (int) Math.max(0, fault.afterBytes() - op.bytes.get());
        checkAlive(path);
        out.write(b, off, fits);
        op.bytes.addAndGet(fits);
      }
      beforeWrite(len);
      out.write(b, off, len);
      op.bytes.addAndGet(len);
    }

    @Override
    public long getPos() throws IOException {
      return out.getPos();
    }

    @Override
    public void flush() throws IOException {
      checkAlive(path);
      out.flush();
    }

    @Override
    public void sync() throws IOException {
      checkAlive(path);
      out.sync();
    }

    @Override
    public void close() throws IOException {
      try {
        checkAlive(path);
      } catch (Crash e) {
        out.close(); // release the descriptor; the partial file stays, as after a real crash
        throw e;
      }
      out.close();
    }
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
