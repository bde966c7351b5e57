#include "data/text_sources.h"

#include <map>
#include <regex>

#include "data/manifest.h"
#include "data/partial.h"
#include "data/sources.h"
#include "util/error.h"
#include "util/strings.h"

namespace repro {

namespace {

DatasetInfo text_info(const std::string& name, int64_t classes, int64_t train, int64_t test,
                      std::vector<std::string> class_names) {
  DatasetInfo info;
  info.name = name;
  info.modality = Modality::Text;
  info.num_classes = classes;
  info.class_names = std::move(class_names);
  info.official_train = train;
  info.official_test = test;
  return info;
}

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

void add_lines(const std::string& bytes, int64_t label, TextSplit& split) {
  for (const auto& line : split_lines(bytes)) {
    const std::string text = trim(cp1252_to_utf8(line));
    if (!text.empty()) split.add(text, label);
  }
}

// Parses one quoted CSV field starting at `at`; advances past the field and its comma.
std::string csv_field(const std::string& line, size_t& at, const std::string& where) {
  if (at >= line.size() || line[at] != '"')
    throw Error(where + ": expected a quoted field at column " + std::to_string(at + 1));
  std::string value;
  for (++at; at < line.size(); ++at) {
    if (line[at] != '"') {
      value += line[at];
    } else if (at + 1 < line.size() && line[at + 1] == '"') {
      value += '"';
      ++at;
    } else {
      break;
    }
  }
  if (at >= line.size()) throw Error(where + ": unterminated quoted field");
  ++at;  // closing quote
  if (at < line.size() && line[at] == ',') ++at;
  return value;
}

}  // namespace

DatasetInfo rotten_tomatoes_info() { return text_info("rotten_tomatoes", 2, 10662, 0, {"negative", "positive"}); }
DatasetInfo imdb_info() { return text_info("imdb", 2, 25000, 25000, {"negative", "positive"}); }
DatasetInfo ag_news_info() {
  return text_info("ag_news", 4, 120000, 7600, {"World", "Sports", "Business", "Sci/Tech"});
}
DatasetInfo newsgroups_info() { return text_info("newsgroups", 20, 11314, 7532, {}); }

RawText load_rotten_tomatoes(const std::filesystem::path& root, const FileOptions& options) {
  DatasetFiles files(manifest("rotten_tomatoes"), root, options);
  const auto bytes = files.read({"pos", "neg"});
  RawText raw;  // no official test split: the split planner cuts it by data.rotten_tomatoes_split
  if (bytes.count("neg")) add_lines(bytes.at("neg"), 0, raw.train);
  if (bytes.count("pos")) add_lines(bytes.at("pos"), 1, raw.train);
  finish_loading(rotten_tomatoes_info(), files, {files.name_of("neg") + ", " + files.name_of("pos"), bytes.size() < 2},
                 {"", true}, raw);
  return raw;
}

RawText load_imdb(const std::filesystem::path& root, const FileOptions& options) {
  DatasetFiles files(manifest("imdb"), root, options);
  static const std::regex review(R"(aclImdb/(train|test)/(pos|neg)/\d+_\d+\.txt)");
  // std::regex recurses once per character of \d+: an archive member path of 100,000 digits overflowed the
  // stack (docs/reliability.md). Review file names are short, so long paths are not reviews.
  const auto tree = files.read_tree("aclImdb", [](const std::string& path) {
    return path == "aclImdb/imdb.vocab" || (path.size() <= 256 && std::regex_match(path, review));
  });
  RawText raw;
  std::map<std::string, int64_t> per_folder;
  for (const auto& [path, bytes] : tree) {
    if (path == "aclImdb/imdb.vocab") {  // the dataset's word list (text.vocab_source=file)
      raw.word_lists["imdb.vocab"] = bytes;
      continue;
    }
    const auto parts = split(path, '/');
    const std::string text = trim(replace_all(bytes, "<br />", " "));
    (parts[1] == "train" ? raw.train : raw.test).add(text, parts[2] == "pos" ? 1 : 0);
    ++per_folder[parts[1] + "/" + parts[2]];
  }
  for (const char* folder : {"train/pos", "train/neg", "test/pos", "test/neg"})
    if (!tree.empty() && !per_folder.count(folder))
      throw Error("imdb: no reviews in aclImdb/" + std::string(folder) + " (a class folder is missing or empty)");
  finish_loading(imdb_info(), files, {"aclImdb/train/{neg,pos}", tree.empty()},
                 {"aclImdb/test/{neg,pos}", tree.empty()}, raw);
  return raw;
}

TextSplit parse_ag_news_csv(const std::string& bytes, const std::string& file) {
  TextSplit split;
  int64_t line_number = 0;
  for (const auto& raw_line : split_lines(bytes)) {
    ++line_number;
    const std::string line =
        raw_line.size() && raw_line.back() == '\r' ? raw_line.substr(0, raw_line.size() - 1) : raw_line;
    if (line.empty()) continue;
    const std::string where = file + ":" + std::to_string(line_number);
    size_t at = 0;
    const std::string label = csv_field(line, at, where), title = csv_field(line, at, where);
    const std::string description = csv_field(line, at, where);
    if (at != line.size()) throw Error(where + ": expected 3 quoted fields (class, title, description)");
    if (label.size() != 1 || label[0] < '1' || label[0] > '4')
      throw Error(where + ": class '" + label + "' is not 1-4");
    split.add(replace_all(replace_all(title + " " + description, "\\n", " "), "\\", " "), label[0] - '1');
  }
  return split;
}

RawText load_ag_news(const std::filesystem::path& root, const FileOptions& options) {
  DatasetFiles files(manifest("ag_news"), root, options);
  RawText raw;
  const auto test = files.read({"test"});
  if (test.count("test")) raw.test = parse_ag_news_csv(test.at("test"), files.name_of("test"));
  // The official train.csv may be missing (this project's machines): a note, and
  // the split planner stops unless data.missing_train=split_test.
  const auto train = files.read({"train"}, /*optional=*/true);
  if (train.count("train")) raw.train = parse_ag_news_csv(train.at("train"), files.name_of("train"));
  finish_loading(ag_news_info(), files, {files.name_of("train"), !train.count("train")},
                 {files.name_of("test"), !test.count("test")}, raw);
  return raw;
}

namespace {

// scikit-learn's _QUOTE_RE, r'(writes in|writes:|wrote:|says:|said:|^In article|^Quoted from|^\||^>)', searched in
// each line (^: the line's start), without std::regex: it took minutes for 20 Newsgroups' 18,846 posts on a busy
// machine (issue 64). The same lines are dropped (the token cache of the whole corpus is byte for byte the same).
bool is_quote_line(const std::string& line) {
  for (const char* anywhere : {"writes in", "writes:", "wrote:", "says:", "said:"})
    if (line.find(anywhere) != std::string::npos) return true;
  for (const char* start : {"In article", "Quoted from", "|", ">"})
    if (starts_with(line, start)) return true;
  return false;
}

std::string drop_quote_lines(const std::string& body) {
  std::string kept;
  bool first = true;
  for (const auto& line : split_lines(body)) {
    if (is_quote_line(line)) continue;
    kept += (first ? "" : "\n") + line;
    first = false;
  }
  return kept;
}

constexpr const char* kAsciiSpace = " \t\n\r\v\f";  // str.strip()'s whitespace, within ASCII

// scikit-learn's strip_newsgroup_footer: cut at the last line that is blank or
// dashes only (line.strip().strip("-") == ""), unless that is the first line or
// there is none.
std::string sklearn_strip_footer(const std::string& text) {
  const auto lines = split(trim(text, kAsciiSpace), '\n');
  size_t cut = 0;
  for (size_t i = lines.size(); i-- > 0;)
    if (trim(trim(lines[i], kAsciiSpace), "-").empty()) {
      cut = i;
      break;
    }
  if (cut == 0) return text;
  std::string kept;
  for (size_t i = 0; i < cut; ++i) kept += (i ? "\n" : "") + lines[i];
  return kept;
}

}  // namespace

std::string strip_newsgroup_post(const std::string& post, NewsgroupsRemove remove) {
  if (remove == NewsgroupsRemove::None) return post;
  const auto blank = post.find("\n\n");  // headers end at the first blank line
  if (remove == NewsgroupsRemove::Sklearn) {
    // fetch_20newsgroups(remove=('headers', 'footers', 'quotes')), step by step:
    // header (str.partition: nothing left without a blank line), footer, quotes.
    const std::string body = blank == std::string::npos ? "" : post.substr(blank + 2);
    return drop_quote_lines(sklearn_strip_footer(body));
  }
  std::string body = blank == std::string::npos ? post : post.substr(blank + 2);
  if (remove == NewsgroupsRemove::Headers) return trim(body);
  const auto signature = body.rfind("\n-- \n");
  if (signature != std::string::npos) body = body.substr(0, signature);
  return trim(drop_quote_lines(body));
}

RawText load_newsgroups(const std::filesystem::path& root, const FileOptions& options, NewsgroupsRemove remove) {
  DatasetFiles files(manifest("newsgroups"), root, options);
  RawText raw;
  std::map<std::string, int64_t> groups;
  for (const std::string split_name : {"train", "test"}) {
    const std::string top = "20news-bydate-" + split_name;
    const auto tree = files.read_tree(top, [](const std::string& path) { return split(path, '/').size() == 3; });
    for (const auto& [path, bytes] : tree) {
      const std::string group = split(path, '/')[1];
      if (split_name == "train") groups.emplace(group, 0);
      if (!groups.count(group)) throw Error(path + ": newsgroup '" + group + "' is not among the training groups");
    }
    int64_t index = 0;
    for (auto& [group, label] : groups) label = index++;  // alphabetical, as the official folders
    ProgressLine progress("newsgroups: cleaning the posts of " + top + "/");
    for (size_t i = 0; i < tree.size(); ++i) {  // a regular expression a line: minutes on a busy machine
      const auto& [path, bytes] = tree[i];
      progress.update(static_cast<double>(i), static_cast<double>(tree.size()));
      (split_name == "train" ? raw.train : raw.test)
          .add(strip_newsgroup_post(cp1252_to_utf8(bytes), remove), groups.at(split(path, '/')[1]));
    }
  }
  for (const auto& [group, label] : groups) raw.class_names.push_back(group);  // by label: alphabetical
  if (!groups.empty() && groups.size() != 20)
    raw.note(NoteKind::Incomplete, "partial data: newsgroups has " + std::to_string(groups.size()) + " of 20 groups");
  DatasetInfo present = newsgroups_info();  // the class checks cover the groups this copy has
  if (!groups.empty()) present.num_classes = static_cast<int64_t>(groups.size());
  finish_loading(present, files, {"20news-bydate-train/", raw.train.size() == 0},
                 {"20news-bydate-test/", raw.test.size() == 0}, raw);
  return raw;
}

}  // namespace repro
