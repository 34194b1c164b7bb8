package io.sediment.manifest;

import java.io.Serializable;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.flink.core.fs.Path;

/**
 * Where each kind of file of a table lives (see docs/spec.md):
 *
 * <pre>
 * &lt;table&gt;/schema/schema-&lt;id&gt;
 * &lt;table&gt;/snapshot/snapshot-&lt;id&gt;, LATEST, EARLIEST, user-&lt;user&gt;, EXPIRING
 * &lt;table&gt;/manifest/manifest-list-&lt;uuid&gt;, manifest-&lt;uuid&gt;
 * &lt;table&gt;/index/dv-&lt;uuid&gt;, index-manifest-&lt;uuid&gt;
 * &lt;table&gt;/tag/tag-&lt;name&gt;
 * &lt;table&gt;/&lt;k1=v1&gt;/&lt;k2=v2&gt;/bucket-&lt;n&gt;/data-&lt;uuid&gt;-&lt;n&gt;.parquet
 * &lt;table&gt;/.markers/&lt;commit-user&gt;/...   (io.sediment.marker.MarkerLayout)
 * </pre>
 */
public final class TablePaths implements Serializable {

  private static final long serialVersionUID = 1L;

  /** Directory name of a null partition value. */
  public static final String DEFAULT_PARTITION = "__DEFAULT_PARTITION__";

  /** Name of the directory of compaction markers, in the table directory. */
  public static final String MARKERS_DIR = ".markers";

  private final String root;

  /** The directories, parsed once: every path of the table is built from one of them. */
  private transient volatile Dirs dirs;

  public TablePaths(Path root) {
    this.root = root.toString();
  }

  private Dirs dirs() {
    Dirs d = dirs;
    if (d == null) {
      d = new Dirs(new Path(root));
      dirs = d;
    }
    return d;
  }

  public Path root() {
    return dirs().root;
  }

  public Path schemaDir() {
    return dirs().schema;
  }

  public Path schema(long id) {
    return child(schemaDir(), "schema-" + id);
  }

  public Path snapshotDir() {
    return dirs().snapshot;
  }

  public Path snapshot(long id) {
    return child(snapshotDir(), "snapshot-" + id);
  }

  /** The record of an expiration in progress (see docs/spec.md, "Expiry record"). */
  public Path expiryRecord() {
    return child(snapshotDir(), "EXPIRING");
  }

  /** Directory of the streaming readers' consumer records ({@link ConsumerManager}). */
  public Path consumerDir() {
    return dirs().consumer;
  }

  public Path consumer(String consumerId) {
    return child(consumerDir(), "consumer-" + consumerId);
  }

  /** Directory of the table's tags ({@link TagManager}). */
  public Path tagDir() {
    return dirs().tag;
  }

  public Path tag(String name) {
    return child(tagDir(), "tag-" + name);
  }

  public Path manifestDir() {
    return dirs().manifest;
  }

  public Path manifest(String name) {
    return child(manifestDir(), name);
  }

  public Path indexDir() {
    return dirs().index;
  }

  public Path index(String name) {
    return child(indexDir(), name);
  }

  /**
   * Directory of the Flink jobs' bookkeeping: per commit user, the markers of outputs being written
   * and the release records of finished tasks (docs/spec.md, section 2.3; laid out by the marker
   * package).
   */
  public Path markersDir() {
    return dirs().markers;
  }

  /** Directory of one bucket of one partition; {@code partitionPath} is "" when unpartitioned. */
  public Path bucketDir(String partitionPath, int bucket) {
    return child(root(), bucketPath(partitionPath, bucket));
  }

  public Path dataFile(String partitionPath, int bucket, String fileName) {
    return child(root(), bucketPath(partitionPath, bucket) + "/" + fileName);
  }

  private static String bucketPath(String partitionPath, int bucket) {
    return partitionPath.isEmpty() ? "bucket-" + bucket : partitionPath + "/bucket-" + bucket;
  }

  /**
   * The path {@code relative} (slash-separated names, no scheme, no "." or "..") under {@code dir}:
   * what {@code new Path(dir, relative)} gives, with one URI parse instead of the several that
   * resolving a child against its parent costs (path building was a tenth of the commit path's
   * time).
   */
  static Path child(Path dir, String relative) {
    URI uri = dir.toUri();
    String path = uri.getPath();
    try {
      return new Path(
          new URI(
              uri.getScheme(),
              uri.getAuthority(),
              path.endsWith("/") ? path + relative : path + "/" + relative,
              null,
              null));
    } catch (URISyntaxException e) {
      return new Path(dir, relative);
    }
  }

  /** The table's directories (built at every table load: one URI parse each, see child). */
  private static final class Dirs {
    final Path root;
    final Path schema;
    final Path snapshot;
    final Path consumer;
    final Path manifest;
    final Path index;
    final Path markers;
    final Path tag;

    Dirs(Path root) {
      this.root = root;
      this.schema = child(root, "schema");
      this.snapshot = child(root, "snapshot");
      this.consumer = child(root, "consumer");
      this.manifest = child(root, "manifest");
      this.index = child(root, "index");
      this.markers = child(root, MARKERS_DIR);
      this.tag = child(root, "tag");
    }
  }

  /** {@code k1=v1/k2=v2} with names and values escaped as Hive does; "" for no keys. */
  public static String partitionPath(List<String> keys, List<String> values) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < keys.size(); i++) {
      if (i > 0) {
        sb.append('/');
      }
      String v = values.get(i);
      sb.append(escape(keys.get(i))).append('=').append(v == null ? DEFAULT_PARTITION : escape(v));
    }
    return sb.toString();
  }

  /** Percent-escapes characters that cannot stand in a path segment (and '%' itself). */
  public static String escape(String s) {
    StringBuilder sb = new StringBuilder(s.length());
    for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
      int c = b & 0xff;
      if (c < 0x20 || c >= 0x7f || "\"#%'*/:=?\\{[]^".indexOf(c) >= 0) {
        sb.append('%')
            .append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
            .append(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
      } else {
        sb.append((char) c);
      }
    }
    return sb.toString();
  }
}
