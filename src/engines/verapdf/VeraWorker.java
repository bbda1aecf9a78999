// The long-lived veraPDF worker behind src/engines/verapdf/ (validator-pool.ts): one JVM that has
// loaded veraPDF's validation profiles once validates one file per request, so a request pays
// neither the JVM's start-up nor the profiles' parsing. Started in the document sandbox (no network,
// only the exchange folder writable) and recycled by the pool; all policy stays in TypeScript.
//
// argv: <socket-path>. Protocol on the Unix socket (0600, in the instance's control
// folder), one connection per request, one JSON line each way: {"input": path, "profile": "auto" |
// flavour id} -> {"ok": true, "reports": [...]} or {"ok": false, "error": "encrypted" | "unreadable"
// | "memory" | "failed"}. Prints "ready" on stdout once validations of a built-in one-page PDF have
// loaded the classes and profiles. A failure reply names the exception's class only: its message
// may quote the file.
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.io.Writer;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.verapdf.core.EncryptedPdfException;
import org.verapdf.core.ModelParsingException;
import org.verapdf.gf.foundry.VeraGreenfieldFoundryProvider;
import org.verapdf.pdfa.Foundries;
import org.verapdf.pdfa.PDFAParser;
import org.verapdf.pdfa.PDFAValidator;
import org.verapdf.pdfa.flavours.PDFAFlavour;
import org.verapdf.pdfa.results.TestAssertion;
import org.verapdf.pdfa.results.ValidationResult;
import org.verapdf.pdfa.validation.profiles.Rule;
import org.verapdf.pdfa.validation.profiles.RuleId;

public final class VeraWorker {
  /** Failed checks kept per rule to find their pages; the count is exact whatever this is. */
  private static final int CHECKS_PER_RULE = 10_000;
  /** A check's context names its page as `pages[N]`, counted from 0 (veraPDF's object paths). */
  private static final Pattern PAGE = Pattern.compile("/pages\\[(\\d+)\\]");
  private static final ObjectMapper JSON = new ObjectMapper();
  /** A one-page PDF validated before "ready": the first request then finds classes loaded and JIT warm. */
  private static final String WARM_UP =
      "%PDF-1.4\n" +
      "1 0 obj\n" +
      "<< /Type /Catalog /Pages 2 0 R >>\n" +
      "endobj\n" +
      "2 0 obj\n" +
      "<< /Type /Pages /Kids [3 0 R] /Count 1 >>\n" +
      "endobj\n" +
      "3 0 obj\n" +
      "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R /Resources << >> >>\n" +
      "endobj\n" +
      "4 0 obj\n" +
      "<< /Length 25 >>\n" +
      "stream\n" +
      "0 0 1 rg 10 10 50 50 re f\n" +
      "endstream\n" +
      "endobj\n" +
      "xref\n" +
      "0 5\n" +
      "0000000000 65535 f \n" +
      "0000000009 00000 n \n" +
      "0000000058 00000 n \n" +
      "0000000115 00000 n \n" +
      "0000000219 00000 n \n" +
      "trailer\n" +
      "<< /Size 5 /Root 1 0 R >>\n" +
      "startxref\n" +
      "294\n" +
      "%%EOF\n";

  public static void main(String[] args) throws Exception {
    // stdout says "ready" and nothing else: whatever a library prints goes to stderr.
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    System.setOut(System.err);
    VeraGreenfieldFoundryProvider.initialise();
    Path warmUp = Files.createTempFile("warm-up", ".pdf");
    Files.write(warmUp, WARM_UP.getBytes(StandardCharsets.ISO_8859_1));
    for (String flavour : new String[] {"ua1", "1b", "2b"}) validate(warmUp.toFile(), flavour);
    Files.delete(warmUp);
    Path socket = Path.of(args[0]);
    try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      server.bind(UnixDomainSocketAddress.of(socket));
      Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString("rw-------"));
      out.println("ready");
      for (;;) {
        try (SocketChannel conn = server.accept()) {
          BufferedReader in = new BufferedReader(Channels.newReader(conn, StandardCharsets.UTF_8));
          String line = in.readLine();
          if (line == null) continue;
          ObjectNode reply = answer(JSON.readTree(line));
          Writer w = Channels.newWriter(conn, StandardCharsets.UTF_8);
          w.write(JSON.writeValueAsString(reply) + "\n");
          w.flush();
        } catch (IOException e) {
          // The service hung up (its timeout or cancel): it kills this JVM next.
        }
      }
    }
  }

  private static ObjectNode answer(JsonNode request) {
    ObjectNode reply = JSON.createObjectNode();
    try {
      reply.put("ok", true);
      reply.set("reports", validate(new File(request.get("input").asText()), request.get("profile").asText()));
    } catch (EncryptedPdfException e) {
      reply.removeAll().put("ok", false).put("error", "encrypted");
    } catch (ModelParsingException e) {
      reply.removeAll().put("ok", false).put("error", "unreadable");
    } catch (OutOfMemoryError e) {
      reply.removeAll().put("ok", false).put("error", "memory");
    } catch (Throwable e) {
      reply.removeAll().put("ok", false).put("error", "failed").put("detail", e.getClass().getSimpleName());
    }
    return reply;
  }

  /** `auto`: the flavours the file's XMP claims (PDF/A and PDF/UA), else PDF/A-1B, as veraPDF's CLI does. */
  private static ArrayNode validate(File file, String profile) throws Exception {
    boolean auto = profile.equals("auto");
    PDFAFlavour chosen = auto ? PDFAFlavour.NO_FLAVOUR : PDFAFlavour.byFlavourId(profile);
    if (!auto && chosen == PDFAFlavour.NO_FLAVOUR) throw new IllegalArgumentException("profile");
    try (PDFAParser parser = open(file, auto ? null : chosen)) {
      List<PDFAFlavour> flavours = new ArrayList<>();
      if (auto) {
        for (PDFAFlavour f : parser.getFlavours()) if (f != PDFAFlavour.NO_FLAVOUR) flavours.add(f);
        if (flavours.isEmpty()) flavours.add(Foundries.defaultInstance().defaultFlavour());
      } else flavours.add(chosen);
      PDFAValidator validator = Foundries.defaultInstance()
          .createValidator(flavours, CHECKS_PER_RULE, false, false, false);
      ArrayNode reports = JSON.createArrayNode();
      for (ValidationResult result : validator.validateAll(parser)) reports.add(report(result));
      return reports;
    }
  }

  /**
   * The parser for `file` (`flavour` null: detect the claim). Its own failures on a damaged file
   * (an xref loop: LoopedException; a bad offset: IllegalArgumentException) are "unreadable", as
   * veraPDF's command line reports such a file as one it could not parse.
   */
  private static PDFAParser open(File file, PDFAFlavour flavour) throws Exception {
    try {
      return flavour == null ? Foundries.defaultInstance().createParser(file)
          : Foundries.defaultInstance().createParser(file, flavour);
    } catch (EncryptedPdfException | ModelParsingException e) {
      throw e;
    } catch (RuntimeException | StackOverflowError e) {
      throw new ModelParsingException("unreadable", e);
    }
  }

  private static ObjectNode report(ValidationResult result) {
    ObjectNode report = JSON.createObjectNode();
    report.put("flavour", result.getPDFAFlavour().getId());
    report.put("profile", result.getProfileDetails().getName());
    report.put("specification", result.getPDFAFlavour().getPart().getId());
    report.put("compliant", result.isCompliant());
    report.put("end", result.getJobEndStatus().name().toLowerCase());
    Map<RuleId, TreeSet<Integer>> pages = new TreeMap<>(VeraWorker::compare);
    for (TestAssertion a : result.getTestAssertions()) {
      if (a.getStatus() != TestAssertion.Status.FAILED) continue;
      TreeSet<Integer> rulePages = pages.computeIfAbsent(a.getRuleId(), k -> new TreeSet<>());
      String context = a.getLocation() == null ? null : a.getLocation().getContext();
      Matcher m = context == null ? null : PAGE.matcher(context);
      if (m != null && m.find()) rulePages.add(Integer.parseInt(m.group(1)) + 1);
    }
    ArrayNode rules = report.putArray("rules");
    Map<RuleId, Integer> failed = new TreeMap<>(VeraWorker::compare);
    failed.putAll(result.getFailedChecks());
    for (Map.Entry<RuleId, Integer> e : failed.entrySet()) {
      RuleId id = e.getKey();
      Rule rule = result.getValidationProfile().getRuleByRuleId(id);
      ObjectNode r = rules.addObject();
      r.put("specification", id.getSpecification().getId());
      r.put("clause", id.getClause());
      r.put("test", id.getTestNumber());
      r.put("description", rule == null ? "" : rule.getDescription());
      r.put("count", e.getValue());
      ArrayNode p = r.putArray("pages");
      for (int page : pages.getOrDefault(id, new TreeSet<>())) p.add(page);
    }
    return report;
  }

  /** Rules in the order of their clauses ("6.1.3" before "6.1.12"), then test numbers. */
  private static int compare(RuleId a, RuleId b) {
    int c = a.getSpecification().compareTo(b.getSpecification());
    if (c != 0) return c;
    String[] x = a.getClause().split("\\."), y = b.getClause().split("\\.");
    for (int i = 0; i < Math.min(x.length, y.length); i++) {
      c = compareParts(x[i], y[i]);
      if (c != 0) return c;
    }
    c = Integer.compare(x.length, y.length);
    return c != 0 ? c : Integer.compare(a.getTestNumber(), b.getTestNumber());
  }

  private static int compareParts(String x, String y) {
    try {
      return Integer.compare(Integer.parseInt(x), Integer.parseInt(y));
    } catch (NumberFormatException e) {
      return x.compareTo(y);
    }
  }
}
