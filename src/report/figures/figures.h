#pragma once
// The figures of `repro report --plots`: learning curves (training and
// validation loss; test accuracy; validation accuracy: three charts against epoch,
// one colour per model row, mean ± 1 std band over seeds, each run's selected
// epoch marked) per experiment and dataset (more rows than colours: per sweep
// combination, then in parts of 8), and robustness curves (test
// accuracy against noise level per model, error bars) where an experiment has
// runs with data.noise. Each figure is written as PNG and/or SVG with a CSV of
// its series beside it; the returned markdown embeds them.
#include <filesystem>
#include <string>
#include <vector>

#include "report/figures/plot.h"
#include "report/records/collect.h"

namespace repro {

struct FigureOptions {
  bool png = true, svg = false;
};

// "png" | "svg" | "both"; throws naming --plot-format otherwise.
FigureOptions figure_options(const std::string& format);

// The learning-curve and robustness charts of one experiment, before drawing (tests inspect them).
struct NamedChart {
  std::string name;  // file stem, e.g. "table1_short_fashion_mnist_accuracy"
  Chart chart;
};

// Writes the figures of `all` into `folder` (created), the sweep-axis figures of `swept` (the same results
// before report --select collapsed their axes; `all` itself without it) and `extra`; returns a "## Figures"
// markdown section whose image links are relative to `markdown_dir`. Every file name starts with `prefix`: a
// report written to another name than report.md gives its own ("against_gpu_"), so that two reports in one folder
// never overwrite each other's figures.
std::string write_figures(const std::vector<ExperimentResults>& all, const std::vector<ExperimentResults>& swept,
                          const std::filesystem::path& folder, const std::filesystem::path& markdown_dir,
                          const FigureOptions& options, const std::string& prefix = "",
                          const std::vector<NamedChart>& extra = {});

// report --against --plots: test accuracy per epoch of each row of `mine` (solid) and of its twins in `other`
// (dashed, same colour), over the seeds both sides have, one chart per dataset.
std::vector<NamedChart> against_charts(const ExperimentResults& mine, const ExperimentResults& other,
                                       const std::string& mine_label, const std::string& other_label);
std::vector<NamedChart> learning_charts(const ExperimentResults& results);
std::vector<NamedChart> robustness_charts(const ExperimentResults& results);
// From `repro eval --levels` results (<run>/eval/NAME.json): accuracy against the level per row, one chart per
// dataset and evaluation name.
std::vector<NamedChart> eval_robustness_charts(const ExperimentResults& results);

// For each dataset and sweep axis of `results` (plan.json's sweep values): the reported metric against the axis
// value, one line per row (a spec row plus its other axes' values), mean ± 1 std over seeds; the values evenly
// spaced in the spec's order and labelled as written (report/figures/sweep_charts.cpp).
std::vector<NamedChart> sweep_charts(const ExperimentResults& results);

// "series,x,mean,std,n" rows of a chart (n: the seeds behind each point), then one row per mark:
// "<series> [<marks_label>]", its x and y, no std, n 1.
std::string chart_csv(const Chart& chart);

}  // namespace repro
