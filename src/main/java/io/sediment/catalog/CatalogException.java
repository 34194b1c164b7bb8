package io.sediment.catalog;

/** A catalog operation refused: missing or existing database or table, or a bad schema. */
public class CatalogException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public CatalogException(String message) {
    super(message);
  }

  public CatalogException(String message, Throwable cause) {
    super(message, cause);
  }
}
