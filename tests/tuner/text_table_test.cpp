#include "tuner/text_table.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace crmap {
namespace {

TEST(TextTableTest, HeaderRuleAndLeftAlignedColumns) {
  TextTable table({"name", "kind"});
  table.AddRow({"fc1", "linear"});
  table.AddRow({"residual", "add"});
  EXPECT_EQ(table.Render(),
            "name      kind\n"
            "--------  ------\n"
            "fc1       linear\n"
            "residual  add\n");  // no trailing spaces
}

TEST(TextTableTest, RightAlignedNumericColumns) {
  TextTable table({"config", ">median us"});
  table.AddRow({"default", "12.5"});
  table.AddRow({"threads=1", "7.0"});
  table.AddRow({"a", "1234.5"});
  EXPECT_EQ(table.Render(),
            "config     median us\n"
            "---------  ---------\n"
            "default         12.5\n"
            "threads=1        7.0\n"
            "a             1234.5\n");
}

TEST(TextTableTest, MissingCellsAreBlankAndExtraCellsDropped) {
  TextTable table({"a", ">b", "c"});
  table.AddRow({"x"});
  table.AddRow({"y", "2", "z", "dropped"});
  std::string out = table.Render();
  EXPECT_EQ(out,
            "a  b  c\n"
            "-  -  -\n"
            "x\n"
            "y  2  z\n");
  EXPECT_EQ(out.find("dropped"), std::string::npos);
}

TEST(TextTableTest, EmptyTableHasHeaderAndRule) {
  TextTable table({"only"});
  EXPECT_EQ(table.Render(), "only\n----\n");
}

TEST(FormatTest, FormatsShortAndLongStrings) {
  EXPECT_EQ(Format("%d-%s-%.2f", 7, "x", 1.5), "7-x-1.50");
  EXPECT_EQ(Format("%s", ""), "");
  // Longer than the internal stack buffer.
  std::string long_text(2000, 'q');
  std::string formatted = Format("<%s>", long_text.c_str());
  EXPECT_EQ(formatted.size(), 2002u);
  EXPECT_EQ(formatted, "<" + long_text + ">");
  std::string edge(511, 'e');  // exactly fills the buffer with the terminator
  EXPECT_EQ(Format("%s", edge.c_str()), edge);
  std::string over(512, 'o');
  EXPECT_EQ(Format("%s", over.c_str()), over);
}

TEST(HumanBytesTest, PicksTheUnit) {
  EXPECT_EQ(HumanBytes(0), "0 B");
  EXPECT_EQ(HumanBytes(1023), "1023 B");
  EXPECT_EQ(HumanBytes(1024), "1.0 KiB");
  EXPECT_EQ(HumanBytes(1536), "1.5 KiB");
  EXPECT_EQ(HumanBytes(int64_t{1} << 20), "1.0 MiB");
  EXPECT_EQ(HumanBytes(int64_t{3} << 30), "3.0 GiB");
  EXPECT_EQ(HumanBytes(int64_t{5} << 40), "5.0 TiB");
  EXPECT_EQ(HumanBytes(int64_t{2048} << 40), "2048.0 TiB") << "TiB is the largest unit";
}

}  // namespace
}  // namespace crmap
