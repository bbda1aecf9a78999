# Loaded by Schemathesis (SCHEMATHESIS_HOOKS) in http-schemathesis.test.ts. A tus chunk
# (application/offset+octet-stream) is raw bytes, sent the way Schemathesis sends octet-stream bodies.
import schemathesis

schemathesis.serializer.alias("application/offset+octet-stream", "application/octet-stream")
