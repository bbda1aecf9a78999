// A compress job, a chained job (rotate, then compress) and runJob (a merge answered with its PDF,
// written to run.pdf) through openapi-generator's Java client
// (its default library, okhttp-gson), generated from the live /openapi.json and compiled with this
// file by test/clients/generator-matrix.test.ts. Prints the two job ids as JSON.
// Usage: java QuireJobs <base-url> <api-key> <input.pdf> <output-dir>

import java.io.File;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import org.openapitools.client.ApiClient;
import org.openapitools.client.ApiException;
import org.openapitools.client.JSON;
import org.openapitools.client.api.FilesApi;
import org.openapitools.client.api.JobsApi;
import org.openapitools.client.model.ChainStep;
import org.openapitools.client.model.CompressOptions;
import org.openapitools.client.model.CreateJobRequestOptions;
import org.openapitools.client.model.DownloadLink;
import org.openapitools.client.model.Job;
import org.openapitools.client.model.JobStatus;

public final class QuireJobs {
  private static final String FILES_PREFIX = "/api/v1/files/";

  private QuireJobs() {}

  static Job finish(JobsApi jobs, Job job) throws ApiException {
    for (int i = 0; i < 20; i++) {
      if (job.getStatus() != JobStatus.QUEUED && job.getStatus() != JobStatus.PROCESSING) break;
      job = jobs.getJob(job.getId(), 30, null);
    }
    if (job.getStatus() != JobStatus.SUCCEEDED) {
      throw new IllegalStateException("job " + job.getId() + " ended " + job.getStatus());
    }
    return job;
  }

  static void download(JobsApi jobs, FilesApi files, Job job, Path output) throws Exception {
    DownloadLink link = jobs.getJobDownload(job.getId());
    String url = link.getUrl();
    String token = URLDecoder.decode(
        url.substring(url.indexOf(FILES_PREFIX) + FILES_PREFIX.length()), StandardCharsets.UTF_8);
    File file = files.getFile(token);
    Files.move(file.toPath(), output, StandardCopyOption.REPLACE_EXISTING);
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 4) throw new IllegalArgumentException("usage: <base-url> <api-key> <input.pdf> <output-dir>");
    ApiClient client = new ApiClient();
    client.setBasePath(args[0]);
    client.setBearerToken(args[1]);
    // A long poll holds the answer up to 30 s; okhttp's default read timeout is 10 s.
    client.setReadTimeout(60_000);
    JobsApi jobs = new JobsApi(client);
    FilesApi files = new FilesApi(client);
    List<File> pdf = List.of(new File(args[2]));
    Path out = Path.of(args[3]);

    CreateJobRequestOptions options =
        new CreateJobRequestOptions(new CompressOptions().level(CompressOptions.LevelEnum.HIGH));
    Job single = jobs.createJob(null, "wait=30", "compress", options, null, null, null, null, null, null, pdf, null);
    List<ChainStep> steps = List.of(
        new ChainStep().tool(ChainStep.ToolEnum.ROTATE).options(Map.of("angle", 90)),
        new ChainStep().tool(ChainStep.ToolEnum.COMPRESS));
    String stepsJson = JSON.serialize(steps);
    Job chained = jobs.createJob(null, "wait=30", null, null, stepsJson, null, null, null, null, null, pdf, null);

    download(jobs, files, finish(jobs, single), out.resolve("compress.pdf"));
    download(jobs, files, finish(jobs, chained), out.resolve("chain.pdf"));
    List<File> twice = List.of(new File(args[2]), new File(args[2]));
    File merged = jobs.runJob(null, null, "merge", null, null, null, null, null, null, null, twice, null);
    Files.move(merged.toPath(), out.resolve("run.pdf"), StandardCopyOption.REPLACE_EXISTING);
    System.out.println("{\"compress\":\"" + single.getId() + "\",\"chain\":\"" + chained.getId() + "\"}");
  }
}
