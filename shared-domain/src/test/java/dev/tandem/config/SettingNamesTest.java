package dev.tandem.config;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.YamlPropertiesFactoryBean;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DataObjectPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.context.annotation.ClassPathScanningCandidateComponentProvider;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.core.io.ClassPathResource;
import org.springframework.core.type.filter.AnnotationTypeFilter;

import java.io.IOException;
import java.lang.reflect.RecordComponent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The settings' names where the project writes them. Spring ignores an environment variable that
 * names no setting, so a misspelt one in a file the project ships (TANDEM_CACHE_L1_TTL_JITER) is a
 * setting silently left at its default: every TANDEM_* variable that the Kubernetes manifests and
 * docker-compose.yml give the services must bind a Tandem setting, and every variable README.md
 * names beside a setting must bind that setting. And every setting is in README.md. Whether a name
 * binds is Spring's own relaxed binding of a system environment variable, asked of each setting
 * there is: a component of a {@code @ConfigurationProperties} record under dev.tandem, or a key of
 * tandem-domain.yml / tandem-service.yml (which the YAML reads itself, as {@code tandem.db.replica.port}).
 */
class SettingNamesTest {

    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();

    /** {@code NAME=value} in tandem.env, commented out or not (a commented one is there to be turned on). */
    private static final Pattern ENV_FILE_LINE = Pattern.compile("(?m)^#?\\s*(TANDEM_[A-Z0-9_]+)=");
    /** A key of a YAML mapping (docker-compose's environment, a Secret's stringData) or an env entry's name. */
    private static final Pattern YAML_KEY = Pattern.compile("(?m)^\\s*(?:-\\s+name:\\s+)?(TANDEM_[A-Z0-9_]+)\\s*(?::|$)");
    /** A setting and its variable beside it: {@code `tandem.x.y` (`TANDEM_X_Y`)}, or in two cells of a table. */
    private static final Pattern README_SETTING = Pattern.compile(
            "`(tandem\\.[a-z0-9.-]+)`\\s*(?:\\(|\\|)\\s*`(TANDEM_[A-Z0-9_]+)`");

    private static final Set<String> SETTINGS = settings();

    @Test
    void everyVariableTheDeploymentsGiveTheServicesBindsASetting() throws IOException {
        List<String> unbound = new ArrayList<>();
        Path k8s = ROOT.resolve("deploy/k8s");
        for (String name : names(ENV_FILE_LINE, k8s.resolve("tandem.env"))) {
            check(name, "deploy/k8s/tandem.env", unbound);
        }
        try (Stream<Path> manifests = Files.walk(k8s)) {
            for (Path manifest : manifests.filter(p -> p.toString().endsWith(".yaml")).sorted().toList()) {
                for (String name : names(YAML_KEY, manifest)) {
                    check(name, ROOT.relativize(manifest).toString(), unbound);
                }
            }
        }
        for (String name : names(YAML_KEY, ROOT.resolve("docker-compose.yml"))) {
            check(name, "docker-compose.yml", unbound);
        }
        assertThat(unbound).as("TANDEM_* variables that bind no setting").isEmpty();
    }

    @Test
    void everyVariableTheReadmeNamesBesideASettingBindsThatSetting() throws IOException {
        List<String> wrong = new ArrayList<>();
        int pairs = 0;
        Matcher pair = README_SETTING.matcher(Files.readString(ROOT.resolve("README.md")));
        while (pair.find()) {
            pairs++;
            String setting = pair.group(1);
            String variable = pair.group(2);
            if (!SETTINGS.contains(setting)) {
                wrong.add(setting + " is no setting");
            } else if (!binds(variable, setting)) {
                wrong.add(variable + " does not bind " + setting);
            }
        }
        assertThat(pairs).as("settings named with their variable in README.md").isGreaterThan(60);
        assertThat(wrong).isEmpty();
    }

    /**
     * Named in full ({@code `tandem.db.replica.host`}) or by its variable, or by its last part in a
     * row that names a sibling in full ({@code `tandem.db.replica.port`, `.name`}). Failed before
     * for tandem.db.replica.url, which no page named.
     */
    @Test
    void everySettingIsInTheReadme() throws IOException {
        List<String> lines = Files.readAllLines(ROOT.resolve("README.md"));
        List<String> missing = new ArrayList<>();
        for (String setting : SETTINGS) {
            String variable = setting.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
            int dot = setting.lastIndexOf('.');
            String sibling = "`" + setting.substring(0, dot + 1);
            String leaf = "`" + setting.substring(dot) + "`";
            if (lines.stream().noneMatch(line -> line.contains("`" + setting + "`") || line.contains(variable)
                    || (line.contains(sibling) && line.contains(leaf)))) {
                missing.add(setting);
            }
        }
        assertThat(missing).as("settings README.md does not name").isEmpty();
    }

    private static void check(String name, String where, List<String> unbound) {
        if (SETTINGS.stream().noneMatch(setting -> binds(name, setting))) {
            unbound.add(where + ": " + name);
        }
    }

    /** Whether Spring binds the environment variable {@code name} to {@code setting}. */
    private static boolean binds(String name, String setting) {
        ConfigurationPropertySource environment = ConfigurationPropertySource.from(new SystemEnvironmentPropertySource(
                StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, Map.of(name, "set")));
        return environment.getConfigurationProperty(ConfigurationPropertyName.of(setting)) != null;
    }

    private static Set<String> names(Pattern pattern, Path file) throws IOException {
        Set<String> names = new TreeSet<>();
        Matcher matcher = pattern.matcher(Files.readString(file));
        while (matcher.find()) {
            names.add(matcher.group(1));
        }
        return names;
    }

    /** Every Tandem setting, by its canonical name. */
    private static Set<String> settings() {
        Set<String> settings = new TreeSet<>();
        var scanner = new ClassPathScanningCandidateComponentProvider(false);
        scanner.addIncludeFilter(new AnnotationTypeFilter(ConfigurationProperties.class));
        for (BeanDefinition candidate : scanner.findCandidateComponents("dev.tandem")) {
            try {
                Class<?> type = Class.forName(candidate.getBeanClassName());
                ConfigurationProperties annotation = type.getAnnotation(ConfigurationProperties.class);
                addComponents(annotation.prefix().isEmpty() ? annotation.value() : annotation.prefix(), type, settings);
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException(e);
            }
        }
        for (String yaml : new String[]{"tandem-domain.yml", "tandem-service.yml"}) {
            YamlPropertiesFactoryBean properties = new YamlPropertiesFactoryBean();
            properties.setResources(new ClassPathResource(yaml));
            properties.getObject().stringPropertyNames().stream().filter(name -> name.startsWith("tandem."))
                    .map(name -> name.replaceAll("\\[\\d+]$", "")) // an empty list's key
                    .forEach(settings::add);
        }
        assertThat(settings).as("settings found").contains("tandem.cache.l1.ttl-jitter", "tandem.db.replica.port",
                "tandem.watch.max-watchers-per-client");
        return settings;
    }

    private static void addComponents(String prefix, Class<?> record, Set<String> settings) {
        for (RecordComponent component : record.getRecordComponents()) {
            String name = prefix + "." + DataObjectPropertyName.toDashedForm(component.getName());
            if (component.getType().isRecord() && component.getType().getPackageName().startsWith("dev.tandem")) {
                addComponents(name, component.getType(), settings);
            } else {
                settings.add(name);
            }
        }
    }
}
