package io.sediment.testutil;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * An {@link S3ProxyServer} for the tests of a class, with Flink's S3 file system pointed at it:
 * started before the class's tests, stopped after them.
 */
public final class S3ProxyExtension implements BeforeAllCallback, AfterAllCallback {

  private final String[] buckets;
  private Path dir;
  private S3ProxyServer server;

  /** A server with these (empty) buckets. */
  public S3ProxyExtension(String... buckets) {
    this.buckets = buckets.clone();
  }

  public S3ProxyServer server() {
    return server;
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    dir = Files.createTempDirectory("s3proxy");
    server = S3ProxyServer.start(dir, buckets);
    server.configureFlink();
  }

  @Override
  public void afterAll(ExtensionContext context) throws IOException {
    if (server != null) {
      server.close();
    }
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
