-- A fingerprint of the folder or tarball an import read, as it lay on disk (src/sources/treeFingerprint.ts):
-- a restart whose tree has the same fingerprint as the store's last import serves the stored graph at once.
ALTER TABLE imports ADD COLUMN fingerprint TEXT;
