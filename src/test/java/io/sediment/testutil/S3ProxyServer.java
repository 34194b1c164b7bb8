package io.sediment.testutil;

import static org.awaitility.Awaitility.await;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.plugin.DefaultPluginManager;
import org.apache.flink.core.plugin.DirectoryBasedPluginFinder;
import org.apache.flink.core.plugin.PluginManager;

/**
 * A real S3 API server for tests: S3Proxy 2.6.0 (target/s3proxy/s3proxy.jar, copied there by the
 * build) started as a child process on a loopback port, keeping its buckets in memory ({@code dir}
 * holds its properties and log). {@link #configureFlink} points Flink's S3 file system
 * (flink-s3-fs-hadoop) at it through Flink's configuration, as a user's flink-conf does.
 */
public final class S3ProxyServer implements AutoCloseable {

  public static final String ACCESS_KEY = "sediment-test";
  public static final String SECRET_KEY = "sediment-test-secret";

  private final Process process;
  private final int port;

  private S3ProxyServer(Process process, int port) {
    this.process = process;
    this.port = port;
  }

  /** Starts a server with the given (empty) buckets; waits until it accepts requests. */
  public static S3ProxyServer start(Path dir, String... buckets) throws IOException {
    Path jar = Paths.get("target", "s3proxy", "s3proxy.jar").toAbsolutePath();
    if (!Files.exists(jar)) {
      throw new IllegalStateException(
          jar
              + " is missing: it is copied by `mvn process-test-resources` (maven-dependency-plugin)");
    }
    int port = freePort();
    Path props = dir.resolve("s3proxy.properties");
    // The in-memory backend: keys are plain strings there, so directory markers ("db.db/") work
    // as on S3; the file system backends map them to directories and lose empty ones.
    Files.write(
        props,
        List.of(
            "s3proxy.endpoint=http://127.0.0.1:" + port,
            "s3proxy.authorization=none",
            "jclouds.provider=transient",
            "jclouds.identity=" + ACCESS_KEY,
            "jclouds.credential=" + SECRET_KEY),
        StandardCharsets.UTF_8);
    File log = dir.resolve("s3proxy.log").toFile();
    Process p =
        new ProcessBuilder(
                ChildJvm.java("-Xmx256m", "-jar", jar.toString(), "--properties", props.toString()))
            .redirectErrorStream(true)
            .redirectOutput(log)
            .start();
    S3ProxyServer server = new S3ProxyServer(p, port);
    try {
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(100))
          .until(() -> !p.isAlive() || server.accepts());
      if (!p.isAlive()) {
        throw new IllegalStateException(
            "S3Proxy exited with " + p.exitValue() + ": " + Files.readString(log.toPath()));
      }
    } catch (RuntimeException e) {
      server.close();
      throw e;
    }
    for (String b : buckets) {
      server.createBucket(b);
    }
    return server;
  }

  private void createBucket(String bucket) throws IOException {
    HttpURLConnection c =
        (HttpURLConnection) URI.create(endpoint() + "/" + bucket).toURL().openConnection();
    c.setRequestMethod("PUT");
    c.setDoOutput(true);
    c.getOutputStream().close();
    int code = c.getResponseCode();
    c.disconnect();
    if (code != 200) {
      throw new IOException("Creating bucket " + bucket + " on S3Proxy answered HTTP " + code);
    }
  }

  private boolean accepts() {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 200);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  public String endpoint() {
    return "http://127.0.0.1:" + port;
  }

  /** Flink's S3 options for this server: endpoint, path-style access, credentials. */
  public Configuration flinkConfiguration() {
    return flinkConfiguration(endpoint());
  }

  /** Flink's S3 options for the server at {@code endpoint} (a child JVM's, given the endpoint). */
  public static Configuration flinkConfiguration(String endpoint) {
    Configuration conf = new Configuration();
    conf.setString("s3.endpoint", endpoint);
    conf.setString("s3.path.style.access", "true");
    conf.setString("s3.access-key", ACCESS_KEY);
    conf.setString("s3.secret-key", SECRET_KEY);
    conf.setString("s3.endpoint.region", "us-east-1");
    return conf;
  }

  /**
   * Initializes Flink's file systems with {@link #flinkConfiguration} and Flink's S3 file system as
   * a plugin (target/flink-plugins/s3-fs-hadoop/, its own class loader), as a Flink process with
   * the jar in plugins/s3-fs-hadoop/ does.
   */
  public void configureFlink() {
    configureFlink(endpoint());
  }

  /** {@link #configureFlink()} for the server at {@code endpoint}: in a child JVM of a test. */
  public static void configureFlink(String endpoint) {
    Configuration conf = flinkConfiguration(endpoint);
    try {
      Path plugins = Paths.get("target", "flink-plugins").toAbsolutePath();
      PluginManager pluginManager =
          new DefaultPluginManager(
              new DirectoryBasedPluginFinder(plugins).findPlugins(),
              CoreOptions.getPluginParentFirstLoaderPatterns(conf));
      FileSystem.initialize(conf, pluginManager);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    process.destroy();
    try {
      process.waitFor();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
    // Later tests get fresh file systems: no S3 client keeps pointing at a stopped server.
    FileSystem.initialize(new Configuration(), null);
  }

  /** Reads a test failure's server log; for messages. */
  public static String readLog(Path dir) {
    try {
      return Files.readString(dir.resolve("s3proxy.log"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
