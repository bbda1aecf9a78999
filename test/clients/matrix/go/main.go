// A compress job, a chained job (rotate, then compress) and RunJob (a merge answered with its PDF,
// written to run.pdf) through openapi-generator's Go client,
// generated from the live /openapi.json into the module this program's go.mod replaces (written by
// test/clients/generator-matrix.test.ts). Prints the two job ids as JSON.
// Usage: program <base-url> <api-key> <input.pdf> <output-dir>
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	openapi "github.com/GIT_USER_ID/GIT_REPO_ID"
)

const filesPrefix = "/api/v1/files/"

func create(api *openapi.APIClient, ctx context.Context, input string, request func(openapi.ApiCreateJobRequest) openapi.ApiCreateJobRequest) (*openapi.Job, error) {
	pdf, err := os.Open(input)
	if err != nil {
		return nil, err
	}
	job, _, err := request(api.JobsAPI.CreateJob(ctx)).File([]*os.File{pdf}).Prefer("wait=30").Execute()
	return job, err
}

func finish(api *openapi.APIClient, ctx context.Context, job *openapi.Job, output string) error {
	for i := 0; i < 20 && (job.Status == openapi.QUEUED || job.Status == openapi.PROCESSING); i++ {
		next, _, err := api.JobsAPI.GetJob(ctx, job.Id).Wait(30).Execute()
		if err != nil {
			return err
		}
		job = next
	}
	if job.Status != openapi.SUCCEEDED {
		return fmt.Errorf("job %s ended %s", job.Id, job.Status)
	}
	link, _, err := api.JobsAPI.GetJobDownload(ctx, job.Id).Execute()
	if err != nil {
		return err
	}
	token, err := url.PathUnescape(link.Url[strings.Index(link.Url, filesPrefix)+len(filesPrefix):])
	if err != nil {
		return err
	}
	file, _, err := api.FilesAPI.GetFile(ctx, token).Execute()
	if err != nil {
		return err
	}
	defer file.Close()
	out, err := os.Create(output)
	if err != nil {
		return err
	}
	defer out.Close()
	_, err = io.Copy(out, file)
	return err
}

// runMerge sends two copies of input to RunJob and writes the merged PDF it answers with.
func runMerge(api *openapi.APIClient, ctx context.Context, input, output string) error {
	first, err := os.Open(input)
	if err != nil {
		return err
	}
	second, err := os.Open(input)
	if err != nil {
		return err
	}
	result, _, err := api.JobsAPI.RunJob(ctx).Tool("merge").File([]*os.File{first, second}).Execute()
	if err != nil {
		return err
	}
	defer result.Close()
	out, err := os.Create(output)
	if err != nil {
		return err
	}
	defer out.Close()
	_, err = io.Copy(out, result)
	return err
}

func run(baseURL, key, input, outDir string) error {
	config := openapi.NewConfiguration()
	config.Servers = openapi.ServerConfigurations{{URL: baseURL}}
	api := openapi.NewAPIClient(config)
	ctx := context.WithValue(context.Background(), openapi.ContextAccessToken, key)

	compress := openapi.NewCompressOptions()
	compress.SetLevel("high")
	single, err := create(api, ctx, input, func(r openapi.ApiCreateJobRequest) openapi.ApiCreateJobRequest {
		return r.Tool("compress").Options(openapi.CreateJobRequestOptions{CompressOptions: compress})
	})
	if err != nil {
		return fmt.Errorf("create compress: %w", err)
	}
	rotate := openapi.NewChainStep("rotate")
	rotate.SetOptions(map[string]interface{}{"angle": 90})
	steps, err := json.Marshal([]*openapi.ChainStep{rotate, openapi.NewChainStep("compress")})
	if err != nil {
		return err
	}
	chained, err := create(api, ctx, input, func(r openapi.ApiCreateJobRequest) openapi.ApiCreateJobRequest {
		return r.Steps(string(steps))
	})
	if err != nil {
		return fmt.Errorf("create chain: %w", err)
	}
	if err := finish(api, ctx, single, filepath.Join(outDir, "compress.pdf")); err != nil {
		return err
	}
	if err := finish(api, ctx, chained, filepath.Join(outDir, "chain.pdf")); err != nil {
		return err
	}
	if err := runMerge(api, ctx, input, filepath.Join(outDir, "run.pdf")); err != nil {
		return fmt.Errorf("run: %w", err)
	}
	report, err := json.Marshal(map[string]string{"compress": single.Id, "chain": chained.Id})
	fmt.Println(string(report))
	return err
}

func main() {
	if len(os.Args) != 5 {
		fmt.Fprintln(os.Stderr, "usage: program <base-url> <api-key> <input.pdf> <output-dir>")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2], os.Args[3], os.Args[4]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
