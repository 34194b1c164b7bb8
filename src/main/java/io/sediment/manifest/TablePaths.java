package io.sediment.manifest;

import java.io.Serializable;
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

  public TablePaths(Path root) {
    this.root = root.toString();
  }

  public Path root() {
    return new Path(root);
  }

  public Path schemaDir() {
    return new Path(root, "schema");
  }

  public Path schema(long id) {
    return new Path(schemaDir(), "schema-" + id);
  }

  public Path snapshotDir() {
    return new Path(root, "snapshot");
  }

  public Path snapshot(long id) {
    return new Path(snapshotDir(), "snapshot-" + id);
  }

  /** The record of an expiration in progress (see docs/spec.md, "Expiry record"). */
  public Path expiryRecord() {
    return new Path(snapshotDir(), "EXPIRING");
  }

  /** Directory of the streaming readers' consumer records ({@link ConsumerManager}). */
  public Path consumerDir() {
    return new Path(root, "consumer");
  }

  public Path consumer(String consumerId) {
    return new Path(consumerDir(), "consumer-" + consumerId);
  }

  public Path manifestDir() {
    return new Path(root, "manifest");
  }

  public Path manifest(String name) {
    return new Path(manifestDir(), name);
  }

  public Path indexDir() {
    return new Path(root, "index");
  }

  public Path index(String name) {
    return new Path(indexDir(), name);
  }

  /**
   * Directory of the Flink jobs' bookkeeping: per commit user, the markers of outputs being written
   * and the release records of finished tasks (docs/spec.md, section 2.3; laid out by the marker
   * package).
   */
  public Path markersDir() {
    return new Path(root, MARKERS_DIR);
  }

  /** Directory of one bucket of one partition; {@code partitionPath} is "" when unpartitioned. */
  public Path bucketDir(String partitionPath, int bucket) {
    String rel = partitionPath.isEmpty() ? "bucket-" + bucket : partitionPath + "/bucket-" + bucket;
    return new Path(root, rel);
  }

  public Path dataFile(String partitionPath, int bucket, String fileName) {
    return new Path(bucketDir(partitionPath, bucket), fileName);
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
