package io.sediment.flink.sql;

import java.util.Set;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.table.catalog.Catalog;
import org.apache.flink.table.factories.CatalogFactory;
import org.apache.flink.table.factories.FactoryUtil;

/**
 * Creates a {@link SedimentCatalog} for {@code CREATE CATALOG c WITH ('type' = 'sediment',
 * 'warehouse' = '...')}. Registered through {@code META-INF/services}.
 */
public final class SedimentCatalogFactory implements CatalogFactory {

  public static final String IDENTIFIER = "sediment";

  public static final ConfigOption<String> WAREHOUSE =
      ConfigOptions.key("warehouse")
          .stringType()
          .noDefaultValue()
          .withDescription("Warehouse path or URI (any Flink file system).");

  public static final ConfigOption<String> DEFAULT_DATABASE =
      ConfigOptions.key("default-database")
          .stringType()
          .defaultValue("default")
          .withDescription("Database used when none is named; created when missing.");

  @Override
  public String factoryIdentifier() {
    return IDENTIFIER;
  }

  @Override
  public Set<ConfigOption<?>> requiredOptions() {
    return Set.of(WAREHOUSE);
  }

  @Override
  public Set<ConfigOption<?>> optionalOptions() {
    return Set.of(DEFAULT_DATABASE);
  }

  @Override
  public Catalog createCatalog(Context context) {
    FactoryUtil.CatalogFactoryHelper helper = FactoryUtil.createCatalogFactoryHelper(this, context);
    helper.validate();
    return new SedimentCatalog(
        context.getName(),
        helper.getOptions().get(WAREHOUSE),
        helper.getOptions().get(DEFAULT_DATABASE));
  }
}
