#pragma once
// The four text benchmarks from their official distributions (archives or folders).
#include <filesystem>
#include <string>

#include "data/dataset.h"
#include "data/integrity.h"
#include "data/text.h"

namespace repro {

DatasetInfo rotten_tomatoes_info();
DatasetInfo imdb_info();
DatasetInfo ag_news_info();
DatasetInfo newsgroups_info();

RawText load_rotten_tomatoes(const std::filesystem::path& root, const FileOptions& options);
RawText load_imdb(const std::filesystem::path& root, const FileOptions& options);
RawText load_ag_news(const std::filesystem::path& root, const FileOptions& options);
// remove: none | headers | all (headers, signatures and quoted lines).
RawText load_newsgroups(const std::filesystem::path& root, const FileOptions& options, NewsgroupsRemove remove);

// AG News CSV: every field quoted, "" for a quote, class 1-4; text = title + " " +
// description with literal "\n" escapes turned into spaces. Errors name `file` and line.
TextSplit parse_ag_news_csv(const std::string& bytes, const std::string& file);
// 20 Newsgroups post without its header block (remove = headers), and also its
// signature (after "\n-- \n") and quoted lines (">" or "|" first, "... writes:"
// attributions) (remove = all), as scikit-learn's remove=.
std::string strip_newsgroup_post(const std::string& post, NewsgroupsRemove remove);

}  // namespace repro
