package io.partkit.bench.packaging;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import javax.xml.xpath.XPathConstants;
import javax.xml.xpath.XPathExpressionException;
import javax.xml.xpath.XPathFactory;
import org.w3c.dom.Document;
import org.w3c.dom.NodeList;
import org.xml.sax.SAXException;

/** The reactor's source tree: the root pom, its modules and their poms. */
final class Reactor {

  private Reactor() {}

  /** The reactor root: {@code $PARTKIT_ROOT} (surefire and failsafe set it), else "..". */
  static Path root() {
    String root = System.getenv("PARTKIT_ROOT");
    Path dir = Path.of(root == null ? ".." : root).toAbsolutePath().normalize();
    if (!Files.isRegularFile(dir.resolve("bom/pom.xml"))) {
      throw new IllegalStateException("not the partkit reactor root: " + dir
          + " (PARTKIT_ROOT=" + root + ")");
    }
    return dir;
  }

  /** The root pom's {@code <module>} directories, in order. */
  static List<String> modules() {
    return texts(pom(root().resolve("pom.xml")), "/project/modules/module");
  }

  /** A pom, parsed without namespaces so that XPath can say {@code /project/...}. */
  static Document pom(Path file) {
    try {
      DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
      factory.setNamespaceAware(false);
      return factory.newDocumentBuilder().parse(file.toFile());
    } catch (ParserConfigurationException | SAXException | IOException e) {
      throw new IllegalStateException("cannot read " + file, e);
    }
  }

  /** The text of every node {@code xpath} selects. */
  static List<String> texts(Document doc, String xpath) {
    try {
      NodeList nodes = (NodeList) XPathFactory.newInstance().newXPath()
          .evaluate(xpath, doc, XPathConstants.NODESET);
      List<String> out = new ArrayList<>();
      for (int i = 0; i < nodes.getLength(); i++) {
        out.add(nodes.item(i).getTextContent().trim());
      }
      return out;
    } catch (XPathExpressionException e) {
      throw new IllegalArgumentException(xpath, e);
    }
  }

  /** The text of the one node {@code xpath} selects, or "" when there is none. */
  static String text(Document doc, String xpath) {
    List<String> all = texts(doc, xpath);
    if (all.size() > 1) {
      throw new IllegalStateException(xpath + " selects " + all.size() + " nodes");
    }
    return all.isEmpty() ? "" : all.get(0);
  }
}
