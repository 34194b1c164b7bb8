package io.sediment.flink.sql.procedures;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The jar a procedure's job carries to the cluster. The SQL client on a real cluster (SqlClientIT)
 * shows that {@code CALL sys.compact} needs it.
 */
class ProcedureJobJarsTest {

  @TempDir Path dir;

  @Test
  void aJarIsAddedToTheJobsPipelineJarsOnce() throws Exception {
    StreamExecutionEnvironment env = new StreamExecutionEnvironment(new Configuration());
    URL jar = dir.resolve("sediment-flink.jar").toUri().toURL();

    ProcedureJobJars.addJar(env, jar);
    ProcedureJobJars.addJar(env, URI.create("file://" + dir.resolve("sediment-flink.jar")).toURL());

    assertThat(env.getConfiguration().get(PipelineOptions.JARS)).containsExactly(jar.toString());
  }

  @Test
  void theSessionsOtherJarsStay() throws Exception {
    Configuration conf = new Configuration();
    conf.set(PipelineOptions.JARS, List.of("file:/opt/udf.jar"));
    StreamExecutionEnvironment env = new StreamExecutionEnvironment(conf);
    URL jar = dir.resolve("sediment-flink.jar").toUri().toURL();

    ProcedureJobJars.addJar(env, jar);

    assertThat(env.getConfiguration().get(PipelineOptions.JARS))
        .containsExactly("file:/opt/udf.jar", jar.toString());
  }

  @Test
  void sedimentFromAJarOfAUserCodeClassLoaderIsThatJar() throws Exception {
    Path jar = dir.resolve("sediment-flink.jar");
    String entry = ProcedureJobJars.class.getName().replace('.', '/') + ".class";
    try (OutputStream out = Files.newOutputStream(jar);
        JarOutputStream jarOut = new JarOutputStream(out);
        InputStream classFile = ProcedureJobJars.class.getResourceAsStream("/" + entry)) {
      jarOut.putNextEntry(new JarEntry(entry));
      classFile.transferTo(jarOut);
    }
    try (URLClassLoader session = new URLClassLoader(new URL[] {jar.toUri().toURL()}, null)) {
      Class<?> fromJar = session.loadClass(ProcedureJobJars.class.getName());

      assertThat(ProcedureJobJars.userJar(fromJar)).contains(jar.toUri().toURL());
    }
  }

  @Test
  void sedimentOnTheJvmsClassPathIsNotShipped() {
    assertThat(ProcedureJobJars.userJar(ProcedureJobJars.class)).isEmpty();

    StreamExecutionEnvironment env = new StreamExecutionEnvironment(new Configuration());
    ProcedureJobJars.addSedimentJar(env);
    assertThat(env.getConfiguration().getOptional(PipelineOptions.JARS)).isEmpty();
  }
}
