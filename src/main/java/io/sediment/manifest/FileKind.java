package io.sediment.manifest;

/** Whether a manifest entry adds a data file to the table or removes one. */
public enum FileKind {
  ADD((byte) 0),
  DELETE((byte) 1);

  private final byte code;

  FileKind(byte code) {
    this.code = code;
  }

  public byte code() {
    return code;
  }

  public static FileKind fromCode(int code) {
    switch (code) {
      case 0:
        return ADD;
      case 1:
        return DELETE;
      default:
        throw new IllegalArgumentException("Unknown file kind code " + code);
    }
  }
}
